// Devices over both transports: HTTP routes with their bodies, the Tauri commands by name and
// arguments; and node events in the cache (online first, new ones in, removed ones out).
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket, LAN_ON, jsonResponse, makeNode, makePairing, wireEvent } from '../test/fakes';
import { ApiError } from './errors';
import { createHttpApi } from './http';
import { applyEvent, queryKeys } from './queries';
import { createTauriApi } from './tauri';
import type { Node } from './types';

beforeEach(() => {
  FakeWebSocket.instances = [];
  window.sessionStorage.clear();
});

afterEach(() => {
  clearMocks();
  delete (window as unknown as Record<string, unknown>).__TAURI_INTERNALS__;
});

const NOTIFY = { capability: 'notify.show', params: { title: 'Sentient', text: 'This is a test from Sentient.' } };

describe('devices over HTTP', () => {
  it('sends each call to its route', async () => {
    window.history.replaceState(null, '', '/#token=d-tok');
    const calls: Array<{ method: string; path: string; body: unknown; auth: string | null }> = [];
    const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const u = new URL(String(input));
      const method = init.method ?? 'GET';
      const headers = (init.headers ?? {}) as Record<string, string>;
      calls.push({ method, path: u.pathname, body: init.body ? JSON.parse(String(init.body)) : undefined, auth: headers.Authorization ?? null });
      if (u.pathname === '/api/nodes' && method === 'GET') return jsonResponse(200, [makeNode({ node_id: 'p 1' })]);
      if (u.pathname === '/api/nodes/lan') return jsonResponse(200, LAN_ON);
      if (u.pathname === '/api/nodes/pairing') return jsonResponse(200, makePairing({ code: '654321' }));
      if (u.pathname === '/api/nodes/desktop' && method === 'DELETE')
        return jsonResponse(400, { detail: "The desktop app can't be removed." });
      if (u.pathname.endsWith('/invoke')) return jsonResponse(200, { ok: false, error: 'The device is offline.', code: 'offline' });
      if (method === 'DELETE') return jsonResponse(200, { ok: true });
      return jsonResponse(200, makeNode({ node_id: 'p 1', name: 'Renamed' }));
    });
    const api = createHttpApi({
      fetch: fetch as unknown as typeof globalThis.fetch,
      WebSocket: FakeWebSocket as unknown as typeof WebSocket,
      origin: 'http://127.0.0.1:4321',
    });
    expect((await api.listNodes())[0].node_id).toBe('p 1');
    await api.getNode('p 1');
    expect((await api.renameNode('p 1', 'Renamed')).name).toBe('Renamed');
    expect(await api.deleteNode('p 1')).toEqual({ ok: true });
    await expect(api.deleteNode('desktop')).rejects.toEqual(new ApiError(400, "The desktop app can't be removed."));
    expect(await api.invokeNode('p 1', NOTIFY)).toEqual({ ok: false, error: 'The device is offline.', code: 'offline' });
    expect((await api.createPairing()).code).toBe('654321');
    expect((await api.lanStatus()).running).toBe(true);
    expect(calls.map(({ auth: _auth, ...c }) => c)).toEqual([
      { method: 'GET', path: '/api/nodes', body: undefined },
      { method: 'GET', path: '/api/nodes/p%201', body: undefined },
      { method: 'PATCH', path: '/api/nodes/p%201', body: { name: 'Renamed' } },
      { method: 'DELETE', path: '/api/nodes/p%201', body: undefined },
      { method: 'DELETE', path: '/api/nodes/desktop', body: undefined },
      { method: 'POST', path: '/api/nodes/p%201/invoke', body: NOTIFY },
      { method: 'POST', path: '/api/nodes/pairing', body: undefined },
      { method: 'GET', path: '/api/nodes/lan', body: undefined },
    ]);
    expect(calls.every((c) => c.auth === 'Bearer d-tok')).toBe(true);
  });
});

describe('devices over Tauri', () => {
  it('calls the device commands', async () => {
    const calls: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === 'list_nodes') return [makeNode({ node_id: 'p1' })];
      if (cmd === 'get_node' || cmd === 'rename_node') return makeNode({ node_id: 'p1', name: 'Pixel' });
      if (cmd === 'invoke_node') return { ok: true, data: { lat: 1.5, lon: 2.5, accuracy_m: 10 } };
      if (cmd === 'create_pairing') return makePairing({ code: '111222' });
      if (cmd === 'lan_status') return LAN_ON;
      return { ok: true };
    });
    const api = createTauriApi();
    expect((await api.listNodes()).map((n) => n.node_id)).toEqual(['p1']);
    await api.getNode('p1');
    expect((await api.renameNode('p1', 'Pixel')).name).toBe('Pixel');
    await api.deleteNode('p1');
    expect((await api.invokeNode('p1', { capability: 'location.get', params: {} })).data).toEqual({ lat: 1.5, lon: 2.5, accuracy_m: 10 });
    expect((await api.createPairing()).code).toBe('111222');
    expect((await api.lanStatus()).port).toBe(7778);
    expect(calls.filter(([cmd]) => !cmd.startsWith('plugin:'))).toEqual([
      ['list_nodes', {}],
      ['get_node', { id: 'p1' }],
      ['rename_node', { id: 'p1', body: { name: 'Pixel' } }],
      ['delete_node', { id: 'p1' }],
      ['invoke_node', { id: 'p1', body: { capability: 'location.get', params: {} } }],
      ['create_pairing', {}],
      ['lan_status', {}],
    ]);
  });

  it("turns a command's error into the engine's sentence", async () => {
    mockIPC((cmd) => {
      if (cmd === 'delete_node') throw { status: 400, detail: "The desktop app can't be removed." };
      return null;
    });
    const api = createTauriApi();
    await expect(api.deleteNode('desktop')).rejects.toEqual(new ApiError(400, "The desktop app can't be removed."));
  });
});

describe('node events in the cache', () => {
  const ev = (type: string, data: unknown) => wireEvent(type, data, '2030-05-04T10:00:00Z');
  const ids = (qc: QueryClient) => qc.getQueryData<Node[]>(queryKeys.nodes)?.map((n) => `${n.node_id}:${n.online ? 'on' : 'off'}`);

  it('keeps the list current, online ones first', () => {
    const qc = new QueryClient();
    qc.setQueryData<Node[]>(queryKeys.nodes, [makeNode({ node_id: 'a' }), makeNode({ node_id: 'b', online: false, connection: null })]);
    applyEvent(qc, ev('node.updated', makeNode({ node_id: 'a', online: false, connection: null })));
    expect(ids(qc)).toEqual(['a:off', 'b:off']);
    applyEvent(qc, ev('node.updated', makeNode({ node_id: 'b' })));
    expect(ids(qc)).toEqual(['b:on', 'a:off']);
    applyEvent(qc, ev('node.updated', makeNode({ node_id: 'c', online: false, connection: null })));
    expect(ids(qc)).toEqual(['b:on', 'c:off', 'a:off']);
    applyEvent(qc, ev('node.deleted', { node_id: 'c' }));
    expect(ids(qc)).toEqual(['b:on', 'a:off']);
    applyEvent(qc, ev('node.updated', { junk: true }));
    applyEvent(qc, ev('node.deleted', {}));
    expect(ids(qc)).toEqual(['b:on', 'a:off']);
    // A device's own events change nothing in the list.
    applyEvent(qc, ev('node.event', { node_id: 'b', event: 'button', data: {} }));
    expect(ids(qc)).toEqual(['b:on', 'a:off']);
  });

  it('leaves an unread list alone, and refetches the LAN state when the devices settings change', () => {
    const qc = new QueryClient();
    applyEvent(qc, ev('node.updated', makeNode({ node_id: 'a' })));
    expect(qc.getQueryData(queryKeys.nodes)).toBeUndefined();
    qc.setQueryData(queryKeys.lan, LAN_ON);
    applyEvent(qc, ev('config.updated', { sections: ['nodes'] }));
    expect(qc.getQueryState(queryKeys.lan)?.isInvalidated).toBe(true);
  });
});
