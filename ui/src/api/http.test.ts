import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket, ONBOARDING_BODY } from '../test/fakes';
import { ApiError, UNREACHABLE } from './errors';
import { createHttpApi, TOKEN_KEY } from './http';
import type { EngineEvent } from './types';

type Call = { url: string; init: RequestInit };

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

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
