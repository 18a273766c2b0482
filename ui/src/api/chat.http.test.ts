// The HTTP transport's chat calls: routes for chats, files and rule proposals, and chat turns
// over the shared /ws socket (flat events matched to the turn by its client id, then its chat).
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket, jsonResponse } from '../test/fakes';
import { ApiError, UNREACHABLE } from './errors';
import { createHttpApi } from './http';
import type { ChatEvent } from './types';

type Call = { url: string; init: RequestInit };

function setup(routes: Record<string, () => Response> = {}) {
  window.history.replaceState(null, '', '/#token=chat-tok');
  const calls: Call[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input);
    calls.push({ url, init });
    const u = new URL(url);
    const answer = routes[`${init.method ?? 'GET'} ${u.pathname}${u.search}`] ?? routes[`${init.method ?? 'GET'} ${u.pathname}`];
    return answer ? answer() : jsonResponse(404, { detail: 'no stub' });
  });
  const api = createHttpApi({
    fetch: fetch as unknown as typeof globalThis.fetch,
    WebSocket: FakeWebSocket as unknown as typeof WebSocket,
    origin: 'http://127.0.0.1:4321',
  });
  return { api, calls };
}

const sent = (ws: FakeWebSocket) => ws.sent.map((s) => JSON.parse(s) as Record<string, unknown>);

beforeEach(() => {
  FakeWebSocket.instances = [];
  window.sessionStorage.clear();
});

describe('chats, files and rule proposals over HTTP', () => {
  it('sends each call to its route with its body', async () => {
    const proposal = { id: 'rp1', status: 'accepted' };
    const { api, calls } = setup({
      'GET /api/sessions': () => jsonResponse(200, []),
      'POST /api/sessions': () => jsonResponse(200, { session_id: 's9' }),
      'PATCH /api/sessions/s%201': () => jsonResponse(200, { ok: true }),
      'DELETE /api/sessions/s1': () => jsonResponse(200, { ok: true }),
      'GET /api/sessions/s1/messages': () => jsonResponse(200, []),
      'GET /api/sessions/search': () => jsonResponse(200, []),
      'GET /api/files': () => jsonResponse(200, []),
      'GET /api/tools': () => jsonResponse(200, []),
      'POST /api/approvals': () => jsonResponse(200, { resolved: true }),
      'GET /api/sessions/s1/rule-proposals': () => jsonResponse(200, []),
      'POST /api/rule-proposals/rp1': () => jsonResponse(200, proposal),
    });

    await api.listSessions();
    expect(await api.createSession()).toEqual({ session_id: 's9' });
    await api.renameSession('s 1', 'Groceries');
    await api.deleteSession('s1');
    await api.sessionMessages('s1');
    await api.searchSessions('milk & eggs');
    await api.listFiles();
    await api.listTools();
    expect(await api.respondApproval('ap1', 'allow_session')).toEqual({ resolved: true });
    await api.ruleProposals('s1');
    expect(await api.decideRuleProposal('rp1', 'accept')).toEqual(proposal);

    const seen = calls.map((c) => `${c.init.method} ${c.url.replace('http://127.0.0.1:4321', '')}`);
    expect(seen).toEqual([
      'GET /api/sessions?limit=100',
      'POST /api/sessions',
      'PATCH /api/sessions/s%201',
      'DELETE /api/sessions/s1',
      'GET /api/sessions/s1/messages?limit=500',
      'GET /api/sessions/search?q=milk%20%26%20eggs',
      'GET /api/files',
      'GET /api/tools',
      'POST /api/approvals',
      'GET /api/sessions/s1/rule-proposals?status=pending',
      'POST /api/rule-proposals/rp1',
    ]);
    expect(JSON.parse(String(calls[2].init.body))).toEqual({ title: 'Groceries' });
    expect(JSON.parse(String(calls[8].init.body))).toEqual({ approval_id: 'ap1', decision: 'allow_session' });
    expect(JSON.parse(String(calls[10].init.body))).toEqual({ decision: 'accept' });
    for (const c of calls) expect((c.init.headers as Record<string, string>).Authorization).toBe('Bearer chat-tok');
  });

  it('uploads a file as multipart with its name and source', async () => {
    const info = { name: 'list (1).txt', size: 4, mime: 'text/plain', modified_at: '2030-05-04T10:00:00Z' };
    const { api, calls } = setup({ 'POST /api/files': () => jsonResponse(200, info) });
    const saved = await api.uploadFile(new Blob(['milk'], { type: 'text/plain' }), 'list.txt');
    expect(saved).toEqual(info);
    const form = calls[0].init.body as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect((form.get('file') as File).name).toBe('list.txt');
    expect(form.get('source')).toBe('upload');
    // fetch sets the multipart boundary itself.
    expect((calls[0].init.headers as Record<string, string>)['Content-Type']).toBeUndefined();
  });

  it("gives the engine's sentence when an upload is refused", async () => {
    const { api } = setup({ 'POST /api/files': () => jsonResponse(413, { detail: 'The file is too large. Files can be at most 50 MB.' }) });
    const err = await api.uploadFile(new Blob(['x']), 'big.bin').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(413);
    expect((err as ApiError).detail).toBe('The file is too large. Files can be at most 50 MB.');
  });
});

describe('chat turns over /ws', () => {
  it('waits for the socket to open, sends chat.send, and follows the turn by client id then chat', async () => {
    const { api } = setup();
    const events: ChatEvent[] = [];
    let ended = false;
    const turn = api.chatSend({ text: 'Hello', client_id: 'c1' }, (ev) => events.push(ev)).then(() => {
      ended = true;
    });
    const ws = FakeWebSocket.latest();
    expect(ws.sent).toEqual([]);
    ws.serverOpen();
    expect(sent(ws)).toEqual([{ type: 'chat.send', text: 'Hello', client_id: 'c1' }]);

    // Another turn's events on the same socket are not ours.
    ws.serverSend({ type: 'session', session_id: 's2', turn_id: 'x', client_id: 'other' });
    ws.serverSend({ type: 'text_delta', session_id: 's2', turn_id: 'x', text: 'not mine' });
    ws.serverSend({ type: 'session', session_id: 's1', turn_id: 't1', client_id: 'c1' });
    ws.serverSend({ type: 'task.updated', data: {}, ts: '2030-01-01T00:00:00Z' });
    ws.serverSend({ type: 'text_delta', session_id: 's1', turn_id: 't1', text: 'Hi ' });
    ws.serverSend({ type: 'text_delta', session_id: 's1', turn_id: 't1', text: 'there' });
    await Promise.resolve();
    expect(ended).toBe(false);
    ws.serverSend({ type: 'done', session_id: 's1', turn_id: 't1', content: 'Hi there', message_id: 'm2', memory_sources: [] });
    await turn;

    expect(events.map((e) => e.type)).toEqual(['session', 'text_delta', 'text_delta', 'done']);
    expect(events.filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text).join('')).toBe('Hi there');

    // Steers that came too late become a turn of their own in the same chat: still followed.
    ws.serverSend({ type: 'session', session_id: 's1', turn_id: 't2', client_id: null });
    ws.serverSend({ type: 'text_delta', session_id: 's1', turn_id: 't2', text: 'Also eggs.' });
    expect(events.map((e) => e.type).slice(-2)).toEqual(['session', 'text_delta']);
  });

  it('steers a running reply, and cancel sends chat.cancel', async () => {
    const { api } = setup();
    api.subscribe(() => {});
    const ws = FakeWebSocket.latest();
    ws.serverOpen();
    const onEvent = vi.fn();
    const ack = api.chatSteer({ session_id: 's1', text: 'also eggs', client_id: 'c7' }, onEvent);
    await Promise.resolve();
    expect(sent(ws)).toEqual([{ type: 'chat.steer', session_id: 's1', text: 'also eggs', client_id: 'c7' }]);
    ws.serverSend({ type: 'steer_ack', session_id: 's1', queued: true, client_id: 'c7' });
    expect(await ack).toEqual({ queued: true });

    await api.chatCancel('s1');
    expect(sent(ws).at(-1)).toEqual({ type: 'chat.cancel', session_id: 's1' });
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('a steer with no reply running becomes a turn whose events reach the listener', async () => {
    const { api } = setup();
    api.subscribe(() => {});
    const ws = FakeWebSocket.latest();
    ws.serverOpen();
    const events: ChatEvent[] = [];
    const ack = api.chatSteer({ session_id: 's1', text: 'also eggs', client_id: 'c8' }, (ev) => events.push(ev));
    await Promise.resolve();
    ws.serverSend({ type: 'steer_ack', session_id: 's1', queued: false, client_id: 'c8' });
    expect(await ack).toEqual({ queued: false });
    ws.serverSend({ type: 'session', session_id: 's1', turn_id: 't3', client_id: 'c8' });
    ws.serverSend({ type: 'text_delta', session_id: 's1', turn_id: 't3', text: 'Added eggs.' });
    expect(events.map((e) => e.type)).toEqual(['session', 'text_delta']);
  });

  it('regenerates over chat.regenerate: the turn is followed by client id, a refusal ends it', async () => {
    const { api } = setup();
    api.subscribe(() => {});
    const ws = FakeWebSocket.latest();
    ws.serverOpen();
    const events: ChatEvent[] = [];
    const turn = api.chatRegenerate({ session_id: 's1', client_id: 'r1' }, (ev) => events.push(ev));
    await Promise.resolve();
    expect(sent(ws)).toEqual([{ type: 'chat.regenerate', session_id: 's1', client_id: 'r1' }]);
    ws.serverSend({ type: 'session', session_id: 's1', turn_id: 't5', client_id: 'r1' });
    ws.serverSend({ type: 'text_delta', session_id: 's1', turn_id: 't5', text: 'Blue.' });
    ws.serverSend({
      type: 'done',
      session_id: 's1',
      turn_id: 't5',
      content: 'Blue.',
      message_id: 'm3',
      memory_sources: [],
      versions: [
        { content: 'Green.', error: null, created_at: 'x' },
        { content: 'Blue.', error: null, created_at: 'y' },
      ],
      version_index: 1,
    });
    await turn;
    expect(events.map((e) => e.type)).toEqual(['session', 'text_delta', 'done']);

    const refused: ChatEvent[] = [];
    const again = api.chatRegenerate({ session_id: 's1', client_id: 'r2' }, (ev) => refused.push(ev));
    await Promise.resolve();
    ws.serverSend({ type: 'error', session_id: 's1', turn_id: '', message: 'There is no answer to regenerate in this chat yet.', recoverable: true, client_id: 'r2' });
    await again;
    expect(refused.map((e) => e.type)).toEqual(['error']);
  });

  it('shows another version of an answer through its route', async () => {
    const { api, calls } = setup({ 'POST /api/sessions/s1/messages/m%203/version': () => jsonResponse(200, []) });
    expect(await api.showAnswerVersion('s1', 'm 3', 0)).toEqual([]);
    expect(JSON.parse(String(calls[0].init.body))).toEqual({ index: 0 });
  });

  it('a dropped message ends with its error and done, matched by client id', async () => {
    const { api } = setup();
    api.subscribe(() => {});
    const ws = FakeWebSocket.latest();
    ws.serverOpen();
    const events: ChatEvent[] = [];
    const turn = api.chatSend({ session_id: 's1', text: 'and bread', client_id: 'c9' }, (ev) => events.push(ev));
    ws.serverSend({ type: 'error', session_id: 's1', turn_id: 't4', message: "Stopped. Your queued message wasn't sent.", dropped: true, client_id: 'c9' });
    ws.serverSend({ type: 'done', session_id: 's1', turn_id: 't4', content: '', message_id: null, cancelled: true, dropped: ['and bread'], client_id: 'c9', memory_sources: [] });
    await turn;
    expect(events.map((e) => e.type)).toEqual(['error', 'done']);
  });

  it('says the connection was lost when the socket drops mid-turn', async () => {
    const { api } = setup();
    api.subscribe(() => {});
    const ws = FakeWebSocket.latest();
    ws.serverOpen();
    const turn = api.chatSend({ text: 'Hello', client_id: 'c10' }, () => {});
    ws.serverSend({ type: 'session', session_id: 's1', turn_id: 't1', client_id: 'c10' });
    ws.serverDrop();
    const err = await turn.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(UNREACHABLE);
  });

  it("gives up with a plain sentence when the socket doesn't open", async () => {
    vi.useFakeTimers();
    try {
      const { api } = setup();
      const turn = api.chatSend({ text: 'Hello' }, () => {}).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(10_001);
      const err = await turn;
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).detail).toMatch(/Can't reach Sentient's engine/);
    } finally {
      vi.useRealTimers();
    }
  });
});
