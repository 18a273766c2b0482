import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket, ONBOARDING_BODY, jsonResponse } from '../test/fakes';
import { ApiError, UNREACHABLE } from './errors';
import { createHttpApi, TOKEN_KEY } from './http';
import type { EngineEvent } from './types';

type Call = { url: string; init: RequestInit };

/** A fetch stub that records calls and answers from a route table. */
function stubFetch(routes: Record<string, () => Response>) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input);
    calls.push({ url, init });
    const key = `${init.method ?? 'GET'} ${new URL(url).pathname}`;
    const answer = routes[key];
    if (!answer) return jsonResponse(404, { detail: `no stub for ${key}` });
    return answer();
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls };
}

function header(call: Call, name: string): string | undefined {
  const headers = call.init.headers as Record<string, string>;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key ? headers[key] : undefined;
}

const STOPPED = { stopped: true, stopped_at: '2030-05-04T10:00:00Z', source: 'desktop' };

beforeEach(() => {
  FakeWebSocket.instances = [];
  window.history.replaceState(null, '', '/');
  window.sessionStorage.clear();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('token handling', () => {
  it('takes the token from the hash, stores it, and removes it from the address bar', async () => {
    window.history.replaceState(null, '', '/#token=s3cret-t0ken');
    const { fetch, calls } = stubFetch({ 'GET /api/stop': () => jsonResponse(200, STOPPED) });

    const api = createHttpApi({ fetch, WebSocket: FakeWebSocket as unknown as typeof WebSocket });

    expect(window.location.hash).toBe('');
    expect(window.location.href).not.toContain('s3cret-t0ken');
    expect(window.sessionStorage.getItem(TOKEN_KEY)).toBe('s3cret-t0ken');

    await api.getStop();
    expect(calls).toHaveLength(1);
    expect(calls[0].url).toBe(`${window.location.origin}/api/stop`);
    expect(header(calls[0], 'Authorization')).toBe('Bearer s3cret-t0ken');
  });

  it('keeps a page route that shares the hash with the token', () => {
    window.history.replaceState(null, '', '/#/tasks&token=abc');
    createHttpApi({ fetch: stubFetch({}).fetch, WebSocket: FakeWebSocket as unknown as typeof WebSocket });
    expect(window.location.hash).toBe('#/tasks');
    expect(window.sessionStorage.getItem(TOKEN_KEY)).toBe('abc');
  });

  it('after a reload (no token in the hash) uses the stored token', async () => {
    window.sessionStorage.setItem(TOKEN_KEY, 'from-before');
    window.history.replaceState(null, '', '/#/settings');
    const { fetch, calls } = stubFetch({ 'GET /api/bootstrap': () => jsonResponse(200, { version: '1' }) });

    const api = createHttpApi({ fetch, WebSocket: FakeWebSocket as unknown as typeof WebSocket });
    await api.bootstrap();

    expect(window.location.hash).toBe('#/settings');
    expect(header(calls[0], 'Authorization')).toBe('Bearer from-before');
  });
});

describe('requests', () => {
  function setup(routes: Record<string, () => Response>) {
    window.history.replaceState(null, '', '/#token=tok');
    const stub = stubFetch(routes);
    const api = createHttpApi({ fetch: stub.fetch, WebSocket: FakeWebSocket as unknown as typeof WebSocket });
    return { api, ...stub };
  }

  it('sends every call to its route with the bearer token, and JSON bodies', async () => {
    const { api, calls } = setup({
      'GET /api/health': () => jsonResponse(200, { ok: true, version: '1', name: 'Sentient' }),
      'GET /api/bootstrap': () => jsonResponse(200, { version: '1' }),
      'POST /api/onboarding': () => jsonResponse(200, { ok: true }),
      'GET /api/stop': () => jsonResponse(200, STOPPED),
      'POST /api/stop-all': () => jsonResponse(200, { ...STOPPED, cancelled: 2 }),
      'POST /api/resume': () => jsonResponse(200, { stopped: false, stopped_at: null, source: 'tray' }),
      'GET /api/config': () => jsonResponse(200, { ui: { theme: 'dark' } }),
      'PATCH /api/config': () => jsonResponse(200, { saved: true, config: { ui: { theme: 'light' } } }),
    });

    expect(await api.health()).toEqual({ ok: true, version: '1', name: 'Sentient' });
    await api.bootstrap();
    const body = ONBOARDING_BODY;
    expect(await api.onboarding(body)).toEqual({ ok: true });
    await api.getStop();
    expect(await api.stopAll()).toEqual({ ...STOPPED, cancelled: 2 });
    expect((await api.resume('tray')).stopped).toBe(false);
    expect(await api.getConfig()).toEqual({ ui: { theme: 'dark' } });
    expect(await api.patchConfig({ ui: { theme: 'light' } })).toEqual({ saved: true, config: { ui: { theme: 'light' } } });

    expect(calls.map((c) => `${c.init.method} ${new URL(c.url).pathname}`)).toEqual([
      'GET /api/health',
      'GET /api/bootstrap',
      'POST /api/onboarding',
      'GET /api/stop',
      'POST /api/stop-all',
      'POST /api/resume',
      'GET /api/config',
      'PATCH /api/config',
    ]);
    for (const call of calls) expect(header(call, 'Authorization')).toBe('Bearer tok');

    const byPath = (m: string, p: string) => calls.find((c) => c.init.method === m && c.url.endsWith(p))!;
    expect(JSON.parse(byPath('POST', '/api/onboarding').init.body as string)).toEqual(body);
    expect(header(byPath('POST', '/api/onboarding'), 'Content-Type')).toBe('application/json');
    expect(JSON.parse(byPath('POST', '/api/stop-all').init.body as string)).toEqual({ source: 'desktop' });
    expect(JSON.parse(byPath('POST', '/api/resume').init.body as string)).toEqual({ source: 'tray' });
    expect(JSON.parse(byPath('PATCH', '/api/config').init.body as string)).toEqual({ ui: { theme: 'light' } });
    expect(byPath('GET', '/api/stop').init.body).toBeUndefined();
  });

  it("turns an error answer into ApiError with the engine's detail", async () => {
    const { api } = setup({
      'POST /api/stop-all': () => jsonResponse(409, { detail: 'Sentient is already stopped.' }),
    });
    const err = await api.stopAll().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, detail: 'Sentient is already stopped.' });
    expect((err as ApiError).message).toBe('Sentient is already stopped.');
  });

  it('joins the messages of a 422 validation list', async () => {
    const { api } = setup({
      'PATCH /api/config': () =>
        jsonResponse(422, {
          detail: [
            { loc: ['body', 'ui', 'theme'], msg: 'Theme must be dark or light.', type: 'value_error' },
            { loc: ['body', 'assistant', 'name'], msg: 'Name cannot be empty.', type: 'value_error' },
          ],
        }),
    });
    await expect(api.patchConfig({ ui: { theme: 'pink' } })).rejects.toMatchObject({
      status: 422,
      detail: 'Theme must be dark or light. Name cannot be empty.',
    });
  });

  it('gives a plain sentence when the error answer is not JSON', async () => {
    const { api } = setup({ 'GET /api/bootstrap': () => new Response('<html>Bad gateway</html>', { status: 502 }) });
    const err = (await api.bootstrap().catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(502);
    expect(err.detail).toMatch(/Something went wrong inside Sentient/);
  });

  it('says so, with what to do, when the engine cannot be reached', async () => {
    window.history.replaceState(null, '', '/#token=tok');
    const fetch = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof globalThis.fetch;
    const api = createHttpApi({ fetch, WebSocket: FakeWebSocket as unknown as typeof WebSocket });
    const err = (await api.bootstrap().catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(UNREACHABLE);
    expect(err.unreachable).toBe(true);
    expect(err.detail).toMatch(/Make sure Sentient is running/);
  });
});

describe('live events over /ws', () => {
  function setup() {
    window.history.replaceState(null, '', '/#token=ws-tok');
    return createHttpApi({
      fetch: stubFetch({}).fetch,
      WebSocket: FakeWebSocket as unknown as typeof WebSocket,
      origin: 'http://127.0.0.1:4321',
    });
  }

  it('opens one socket with the token and delivers events to every subscriber', () => {
    const api = setup();
    const a: EngineEvent[] = [];
    const b: EngineEvent[] = [];
    api.subscribe((ev) => a.push(ev));
    api.subscribe((ev) => b.push(ev));

    expect(FakeWebSocket.instances).toHaveLength(1);
    const ws = FakeWebSocket.latest();
    expect(ws.url).toBe('ws://127.0.0.1:4321/ws?token=ws-tok');
    ws.serverOpen();

    ws.serverSend({ type: 'hello', version: '0.1.0', assistant: 'Sentient' });
    ws.serverSend({ type: 'stop.updated', data: { stopped: true, stopped_at: 'x', source: 'tray' }, ts: '2030-01-01T00:00:00Z' });
    ws.serverSend({ type: 'text_delta', session_id: 's1', turn_id: 't1', text: 'Hi' });
    ws.serverSend('not json');
    ws.serverSend({ type: 'pong' });

    expect(a).toEqual([
      { type: 'hello', data: { type: 'hello', version: '0.1.0', assistant: 'Sentient' }, ts: expect.any(String) },
      { type: 'stop.updated', data: { stopped: true, stopped_at: 'x', source: 'tray' }, ts: '2030-01-01T00:00:00Z' },
      { type: 'text_delta', data: { type: 'text_delta', session_id: 's1', turn_id: 't1', text: 'Hi' }, ts: expect.any(String) },
    ]);
    expect(b).toEqual(a);
  });

  it('pings every 25 seconds while open', () => {
    vi.useFakeTimers();
    const api = setup();
    api.subscribe(() => {});
    const ws = FakeWebSocket.latest();
    ws.serverOpen();
    vi.advanceTimersByTime(24_999);
    expect(ws.sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ws.sent.map((m) => JSON.parse(m))).toEqual([{ type: 'ping' }]);
    vi.advanceTimersByTime(25_000);
    expect(ws.sent).toHaveLength(2);
  });

  it('reconnects with growing waits when the socket drops, and says the connection was lost', () => {
    vi.useFakeTimers();
    const api = setup();
    const events: string[] = [];
    api.subscribe((ev) => events.push(ev.type));
    const first = FakeWebSocket.latest();
    first.serverOpen();

    first.serverDrop();
    expect(events).toEqual(['connection.lost']);
    expect(FakeWebSocket.instances).toHaveLength(1);

    vi.advanceTimersByTime(500);
    expect(FakeWebSocket.instances).toHaveLength(2);
    // This attempt fails before opening: the next wait is longer.
    FakeWebSocket.latest().serverDrop();
    vi.advanceTimersByTime(999);
    expect(FakeWebSocket.instances).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(FakeWebSocket.instances).toHaveLength(3);

    const third = FakeWebSocket.latest();
    expect(third.url).toBe('ws://127.0.0.1:4321/ws?token=ws-tok');
    third.serverOpen();
    third.serverSend({ type: 'hello', version: '0.1.0', assistant: 'Sentient' });
    third.serverSend({ type: 'config.updated', data: { sections: ['ui'] }, ts: 't' });
    // Only one "lost" for the one outage.
    expect(events).toEqual(['connection.lost', 'hello', 'config.updated']);
  });

  it('closes the socket after the last subscriber leaves and does not reconnect', () => {
    vi.useFakeTimers();
    const api = setup();
    const seen: EngineEvent[] = [];
    const unsubscribe = api.subscribe((ev) => seen.push(ev));
    const ws = FakeWebSocket.latest();
    ws.serverOpen();

    unsubscribe();
    ws.serverSend({ type: 'stop.updated', data: {}, ts: 't' });
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(ws.closedByClient).toBe(true);
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it('keeps the socket when a new subscriber arrives right after the last one left', () => {
    vi.useFakeTimers();
    const api = setup();
    api.subscribe(() => {})();
    const seen: string[] = [];
    api.subscribe((ev) => seen.push(ev.type));
    vi.advanceTimersByTime(5_000);
    const ws = FakeWebSocket.latest();
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(ws.closedByClient).toBe(false);
    ws.serverOpen();
    ws.serverSend({ type: 'stop.updated', data: { stopped: false }, ts: 't' });
    expect(seen).toEqual(['stop.updated']);
  });
});

describe('models and secrets', () => {
  function setup(routes: Record<string, () => Response>) {
    window.history.replaceState(null, '', '/#token=tok');
    const stub = stubFetch(routes);
    const api = createHttpApi({ fetch: stub.fetch, WebSocket: FakeWebSocket as unknown as typeof WebSocket });
    return { api, ...stub };
  }
  const bodyOf = (call: Call) => (call.init.body === undefined ? undefined : JSON.parse(call.init.body as string));
  const route = (call: Call) => `${call.init.method} ${new URL(call.url).pathname}${new URL(call.url).search}`;

  it('sends every call to its route with the right body', async () => {
    const ROLES = { primary: 'ollama_chat/qwen3:8b', fast: null, planner: null, executor: null, embedding: 'ollama/nomic-embed-text', vision: null, voice: null };
    const { api, calls } = setup({
      'GET /api/models/providers': () => jsonResponse(200, [{ id: 'anthropic' }]),
      'GET /api/models/local': () => jsonResponse(200, { ollama: { reachable: false, models: [] }, lm_studio: { reachable: false, models: [] } }),
      'POST /api/models/test': () => jsonResponse(200, { ok: true, latency_ms: 900, reply: 'hi', error: null, supports_tools: true }),
      'POST /api/models/test-embedding': () => jsonResponse(200, { ok: true, dim: 768, error: null }),
      'GET /api/config': () => jsonResponse(200, { models: { ...ROLES, fallbacks: {}, reasoning: {} }, ui: {} }),
      'PUT /api/models/roles': () => jsonResponse(200, { ...ROLES, fast: 'openai/gpt-5-mini' }),
      'PUT /api/models/fallbacks': () => jsonResponse(200, { ok: true }),
      'GET /api/models/busy': () => jsonResponse(200, { busy: false, job: null, model: null, since: null, waiting: 0, deferred: 0, deferred_reason: null }),
      'GET /api/system/hardware': () => jsonResponse(200, { os: 'linux', summary: 'unknown' }),
      'GET /api/secrets': () => jsonResponse(200, [{ name: 'anthropic', set: true, source: 'keychain', kind: 'provider' }]),
      'PUT /api/secrets/anthropic': () => jsonResponse(200, { ok: true }),
      'DELETE /api/secrets/open%20ai': () => jsonResponse(200, { ok: true }),
    });

    expect(await api.modelProviders()).toEqual([{ id: 'anthropic' }]);
    expect((await api.localModels()).ollama.reachable).toBe(false);
    expect((await api.testModel({ model: 'ollama_chat/qwen3:8b', role: 'fast' })).supports_tools).toBe(true);
    expect((await api.testEmbedding({ model: 'ollama/nomic-embed-text' })).dim).toBe(768);
    // The roles come from the models settings, without the other fields.
    expect(await api.getRoles()).toEqual(ROLES);
    expect((await api.setRoles({ fast: 'openai/gpt-5-mini', vision: null })).fast).toBe('openai/gpt-5-mini');
    expect(await api.setFallbacks({ primary: ['anthropic/claude-haiku-4-5'] })).toEqual({ ok: true });
    expect((await api.modelBusy()).busy).toBe(false);
    await api.hardware();
    await api.hardware(true);
    expect((await api.listSecrets())[0].set).toBe(true);
    expect(await api.setSecret('anthropic', 'sk-ant-123')).toEqual({ ok: true });
    expect(await api.deleteSecret('open ai')).toEqual({ ok: true });

    expect(calls.map(route)).toEqual([
      'GET /api/models/providers',
      'GET /api/models/local',
      'POST /api/models/test',
      'POST /api/models/test-embedding',
      'GET /api/config',
      'PUT /api/models/roles',
      'PUT /api/models/fallbacks',
      'GET /api/models/busy',
      'GET /api/system/hardware?refresh=false',
      'GET /api/system/hardware?refresh=true',
      'GET /api/secrets',
      'PUT /api/secrets/anthropic',
      'DELETE /api/secrets/open%20ai',
    ]);
    for (const call of calls) expect(header(call, 'Authorization')).toBe('Bearer tok');
    expect(bodyOf(calls[2])).toEqual({ model: 'ollama_chat/qwen3:8b', role: 'fast' });
    expect(bodyOf(calls[3])).toEqual({ model: 'ollama/nomic-embed-text' });
    expect(bodyOf(calls[5])).toEqual({ fast: 'openai/gpt-5-mini', vision: null });
    expect(bodyOf(calls[6])).toEqual({ primary: ['anthropic/claude-haiku-4-5'] });
    expect(bodyOf(calls[11])).toEqual({ value: 'sk-ant-123' });
    expect(bodyOf(calls[12])).toBeUndefined();
  });

  it("gives the engine's sentence when saving a role fails", async () => {
    const { api } = setup({
      'PUT /api/models/roles': () =>
        jsonResponse(422, {
          detail: [{ loc: ['body', 'fast'], msg: '"gpt5" is not a model name. Write it as provider/model.', type: 'value_error' }],
        }),
    });
    await expect(api.setRoles({ fast: 'gpt5' })).rejects.toMatchObject({
      status: 422,
      detail: '"gpt5" is not a model name. Write it as provider/model.',
    });
  });
});

describe('Ollama downloads (NDJSON)', () => {
  /** A streamed answer whose body arrives in exactly these chunks, one per read. */
  function streamed(chunks: string[], opts: { failAfter?: number } = {}) {
    const encoder = new TextEncoder();
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (opts.failAfter !== undefined && i === opts.failAfter) {
          controller.error(new TypeError('network error'));
          return;
        }
        if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]));
        else controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'application/x-ndjson' } });
  }

  function setup(answer: () => Response) {
    window.history.replaceState(null, '', '/#token=tok');
    const stub = stubFetch({ 'POST /api/models/ollama/pull': answer });
    const api = createHttpApi({ fetch: stub.fetch, WebSocket: FakeWebSocket as unknown as typeof WebSocket });
    return { api, ...stub };
  }

  it('calls onProgress once per line, also when lines are split across chunks', async () => {
    const { api, calls } = setup(() =>
      streamed([
        '{"status":"pulling manifest"}\n{"status":"pull',
        'ing 6a0746","completed":0,"total":2000}\n',
        '{"status":"pulling 6a0746","completed":1000,',
        '"total":2000}\n\n{"status":"pulling 6a0746","completed":2000,"total":2000}\n{"status":"verifying sha256 digest"}',
        '\n{"status":"succ',
        'ess"}',
      ]),
    );
    const lines: unknown[] = [];
    await api.pullModel('qwen3:8b', (line) => lines.push(line));

    expect(lines).toEqual([
      { status: 'pulling manifest' },
      { status: 'pulling 6a0746', completed: 0, total: 2000 },
      { status: 'pulling 6a0746', completed: 1000, total: 2000 },
      { status: 'pulling 6a0746', completed: 2000, total: 2000 },
      { status: 'verifying sha256 digest' },
      { status: 'success' },
    ]);
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0].init.body as string)).toEqual({ name: 'qwen3:8b' });
    expect(header(calls[0], 'Authorization')).toBe('Bearer tok');
    expect(header(calls[0], 'Accept')).toBe('application/x-ndjson');
  });

  it('hands each line over as soon as it arrives, before the download ends', async () => {
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
    });
    const { api } = setup(() => new Response(body, { status: 200 }));
    const lines: Array<{ status: string }> = [];
    const done = api.pullModel('qwen3:8b', (line) => lines.push(line as { status: string }));

    controller.enqueue(encoder.encode('{"status":"pulling manifest"}\n{"status":"half'));
    await vi.waitFor(() => expect(lines).toEqual([{ status: 'pulling manifest' }]));
    controller.enqueue(encoder.encode(' a line"}\n'));
    await vi.waitFor(() => expect(lines).toHaveLength(2));
    controller.close();
    await done;
    expect(lines[1]).toEqual({ status: 'half a line' });
  });

  it('keeps a multi-byte character that is split across chunks whole', async () => {
    const bytes = new TextEncoder().encode('{"status":"téléchargement"}\n');
    const cut = bytes.indexOf(0xc3) + 1; // inside the first "é"
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, cut));
        c.enqueue(bytes.slice(cut));
        c.close();
      },
    });
    const { api } = setup(() => new Response(body, { status: 200 }));
    const lines: unknown[] = [];
    await api.pullModel('x', (line) => lines.push(line));
    expect(lines).toEqual([{ status: 'téléchargement' }]);
  });

  it('passes the error line on and ends normally (the window shows it)', async () => {
    const { api } = setup(() =>
      streamed(['{"status":"pulling manifest"}\n{"status":"error","error":"Ollama could not download it: file does not exist"}\n']),
    );
    const lines: unknown[] = [];
    await api.pullModel('nope:1b', (line) => lines.push(line));
    expect(lines.at(-1)).toEqual({ status: 'error', error: 'Ollama could not download it: file does not exist' });
  });

  it("turns a refused download into ApiError with the engine's detail", async () => {
    const { api } = setup(() => jsonResponse(503, { detail: "Ollama isn't running. Start Ollama and try again." }));
    const onProgress = vi.fn();
    await expect(api.pullModel('qwen3:8b', onProgress)).rejects.toMatchObject({
      status: 503,
      detail: "Ollama isn't running. Start Ollama and try again.",
    });
    expect(onProgress).not.toHaveBeenCalled();
  });

  it('says the connection was lost when the stream breaks midway', async () => {
    const { api } = setup(() => streamed(['{"status":"pulling manifest"}\n'], { failAfter: 1 }));
    const lines: unknown[] = [];
    const err = (await api.pullModel('qwen3:8b', (line) => lines.push(line)).catch((e: unknown) => e)) as ApiError;
    expect(lines).toEqual([{ status: 'pulling manifest' }]);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.unreachable).toBe(true);
    expect(err.detail).toMatch(/Lost the connection/);
  });

  it('refuses a line that is not JSON with a plain sentence', async () => {
    const { api } = setup(() => streamed(['<html>oops</html>\n']));
    await expect(api.pullModel('qwen3:8b', () => {})).rejects.toMatchObject({ status: 502 });
  });
});

describe('model presets and the check-up', () => {
  function setup(routes: Record<string, () => Response>) {
    window.history.replaceState(null, '', '/#token=tok');
    const stub = stubFetch(routes);
    const api = createHttpApi({ fetch: stub.fetch, WebSocket: FakeWebSocket as unknown as typeof WebSocket });
    return { api, ...stub };
  }

  it('sends the preset calls to their routes, with the name in the path', async () => {
    const SWITCH = { preset: null, changed: [], missing: [], can_undo: true };
    const { api, calls } = setup({
      'GET /api/models/presets': () => jsonResponse(200, { active: null, modified: false, can_undo: false, undo_preset: null, presets: [] }),
      'POST /api/models/presets/Local%20only/apply': () => jsonResponse(200, SWITCH),
      'POST /api/models/presets/undo': () => jsonResponse(200, { ...SWITCH, can_undo: false }),
      'POST /api/models/presets': () => jsonResponse(200, { name: 'Work' }),
      'PATCH /api/models/presets/Work': () => jsonResponse(200, { name: 'Office' }),
      'DELETE /api/models/presets/Office': () => jsonResponse(200, { ok: true }),
    });

    expect((await api.modelPresets()).presets).toEqual([]);
    expect(await api.applyModelPreset('Local only')).toEqual(SWITCH);
    expect((await api.undoModelPreset()).can_undo).toBe(false);
    expect(await api.saveModelPreset({ name: 'Work', overwrite: true })).toEqual({ name: 'Work' });
    expect(await api.renameModelPreset('Work', 'Office')).toEqual({ name: 'Office' });
    expect(await api.deleteModelPreset('Office')).toEqual({ ok: true });

    expect(calls.map((c) => `${c.init.method} ${new URL(c.url).pathname}`)).toEqual([
      'GET /api/models/presets',
      'POST /api/models/presets/Local%20only/apply',
      'POST /api/models/presets/undo',
      'POST /api/models/presets',
      'PATCH /api/models/presets/Work',
      'DELETE /api/models/presets/Office',
    ]);
    expect(JSON.parse(calls[3].init.body as string)).toEqual({ name: 'Work', overwrite: true });
    expect(JSON.parse(calls[4].init.body as string)).toEqual({ name: 'Office' });
  });

  it("gives the engine's sentence when a preset can't be used", async () => {
    const { api } = setup({
      'POST /api/models/presets/Cloud/apply': () =>
        jsonResponse(409, { detail: 'Add a key for Anthropic, OpenAI or OpenRouter in Settings > Models to use cloud models.' }),
    });
    await expect(api.applyModelPreset('Cloud')).rejects.toMatchObject({ status: 409, detail: expect.stringMatching(/^Add a key/) });
  });

  it('streams the check-up lines as they arrive', async () => {
    const lines = [
      { type: 'start', roles: [{ role: 'primary', model: 'ollama_chat/qwen3:8b' }], hardware: { summary: 'unknown' } },
      { type: 'step', role: 'primary', label: 'Trying a tool call' },
      { type: 'role', role: 'primary', model: 'ollama_chat/qwen3:8b', provider: 'ollama_chat', local: true, inherits: null, status: 'pass', checks: [] },
      { type: 'done', status: 'pass', roles: [] },
    ];
    const text = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
    const encoder = new TextEncoder();
    // Cut the text every 7 bytes, so most lines span several chunks.
    const bytes = encoder.encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.slice(i, i + 7));
        c.close();
      },
    });
    const { api, calls } = setup({ 'POST /api/models/checkup': () => new Response(body, { status: 200 }) });
    const seen: unknown[] = [];
    await api.modelCheckup({ roles: { primary: 'ollama_chat/qwen3:8b' } }, (line) => seen.push(line));

    expect(seen).toEqual(lines);
    expect(JSON.parse(calls[0].init.body as string)).toEqual({ roles: { primary: 'ollama_chat/qwen3:8b' } });
  });

  it("turns a refused check-up (unknown role) into ApiError with the engine's detail", async () => {
    const { api } = setup({ 'POST /api/models/checkup': () => jsonResponse(400, { detail: 'boss is not a role.' }) });
    await expect(api.modelCheckup({ roles: { boss: null } }, () => {})).rejects.toMatchObject({ status: 400, detail: 'boss is not a role.' });
  });
});
