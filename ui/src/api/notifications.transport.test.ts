// Notifications and webhooks over both transports: HTTP routes with their query strings and
// bodies, the Tauri commands by name and arguments.
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket, jsonResponse, makeNotification, wireEvent } from '../test/fakes';
import { ApiError } from './errors';
import { createHttpApi } from './http';
import { applyEvent, queryKeys } from './queries';
import { createTauriApi } from './tauri';
import type { NotificationList } from './types';

beforeEach(() => {
  FakeWebSocket.instances = [];
  window.sessionStorage.clear();
});

afterEach(() => {
  clearMocks();
  delete (window as unknown as Record<string, unknown>).__TAURI_INTERNALS__;
});

describe('notifications and hooks over HTTP', () => {
  it('sends each call to its route', async () => {
    window.history.replaceState(null, '', '/#token=n-tok');
    const calls: Array<{ method: string; path: string; body: unknown }> = [];
    const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const u = new URL(String(input));
      const method = init.method ?? 'GET';
      calls.push({ method, path: `${u.pathname}${u.search}`, body: init.body ? JSON.parse(String(init.body)) : undefined });
      if (u.pathname === '/api/notifications' && method === 'GET') return jsonResponse(200, { notifications: [], unread: 0 });
      if (u.pathname === '/api/hooks' && method === 'GET') return jsonResponse(200, []);
      if (u.pathname === '/api/hooks' && method === 'POST') return jsonResponse(400, { detail: 'A hook needs a name of 1 to 80 characters.' });
      return jsonResponse(200, { ok: true });
    });
    const api = createHttpApi({
      fetch: fetch as unknown as typeof globalThis.fetch,
      WebSocket: FakeWebSocket as unknown as typeof WebSocket,
      origin: 'http://127.0.0.1:4321',
    });
    expect(await api.listNotifications()).toEqual({ notifications: [], unread: 0 });
    await api.listNotifications(5, true);
    await api.readNotification('n 1');
    await api.readAllNotifications();
    await api.deleteNotification('n 1');
    await api.deleteAllNotifications();
    await api.listHooks();
    await expect(api.createHook('')).rejects.toEqual(new ApiError(400, 'A hook needs a name of 1 to 80 characters.'));
    await api.deleteHook('h/1');
    expect(calls).toEqual([
      { method: 'GET', path: '/api/notifications?limit=50&unread_only=false', body: undefined },
      { method: 'GET', path: '/api/notifications?limit=5&unread_only=true', body: undefined },
      { method: 'POST', path: '/api/notifications/n%201/read', body: undefined },
      { method: 'POST', path: '/api/notifications/read-all', body: undefined },
      { method: 'DELETE', path: '/api/notifications/n%201', body: undefined },
      { method: 'DELETE', path: '/api/notifications', body: undefined },
      { method: 'GET', path: '/api/hooks', body: undefined },
      { method: 'POST', path: '/api/hooks', body: { name: '' } },
      { method: 'DELETE', path: '/api/hooks/h%2F1', body: undefined },
    ]);
  });
});

describe('notifications over Tauri', () => {
  it('calls the notification and webhook commands', async () => {
    const calls: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === 'list_notifications') return { notifications: [], unread: 2 };
      if (cmd === 'list_hooks') return [];
      if (cmd === 'create_hook') return { id: 'h1', name: 'CI', url: 'http://127.0.0.1:1/hooks/h1', created_at: '', last_called_at: null, calls: 0, secret: 's' };
      return { ok: true };
    });
    const api = createTauriApi();
    expect((await api.listNotifications()).unread).toBe(2);
    await api.readNotification('n1');
    await api.readAllNotifications();
    await api.deleteNotification('n1');
    await api.deleteAllNotifications();
    expect(calls.filter(([cmd]) => !cmd.startsWith('plugin:'))).toEqual([
      ['list_notifications', { limit: 50, unreadOnly: false }],
      ['read_notification', { id: 'n1' }],
      ['read_all_notifications', {}],
      ['delete_notification', { id: 'n1' }],
      ['delete_all_notifications', {}],
    ]);
    calls.length = 0;
    expect(await api.listHooks()).toEqual([]);
    expect((await api.createHook('CI')).secret).toBe('s');
    await api.deleteHook('h1');
    expect(calls.filter(([cmd]) => !cmd.startsWith('plugin:'))).toEqual([
      ['list_hooks', {}],
      ['create_hook', { body: { name: 'CI' } }],
      ['delete_hook', { id: 'h1' }],
    ]);
  });
});

describe('notification events in the cache', () => {
  const ev = (type: string, data: unknown) => wireEvent(type, data, '2030-05-04T10:00:00Z');

  it('keeps the feed and its unread count in step', () => {
    const qc = new QueryClient();
    qc.setQueryData<NotificationList>(queryKeys.notifications, {
      notifications: [makeNotification({ id: 'a', created_at: '2030-05-04T09:00:00Z' })],
      unread: 5,
    });
    applyEvent(qc, ev('notification.new', makeNotification({ id: 'b', created_at: '2030-05-04T10:00:00Z' })));
    let feed = qc.getQueryData<NotificationList>(queryKeys.notifications);
    expect(feed?.notifications.map((n) => n.id)).toEqual(['b', 'a']);
    expect(feed?.unread).toBe(6);
    // Settled and marked read by the engine.
    applyEvent(qc, ev('notification.updated', makeNotification({ id: 'b', read: true, payload: { status: 'approved' } })));
    feed = qc.getQueryData<NotificationList>(queryKeys.notifications);
    expect(feed?.unread).toBe(5);
    expect(feed?.notifications[0].payload.status).toBe('approved');
    applyEvent(qc, ev('notification.read', { id: 'a' }));
    expect(qc.getQueryData<NotificationList>(queryKeys.notifications)?.unread).toBe(4);
    applyEvent(qc, ev('notification.read', { id: 'a' }));
    expect(qc.getQueryData<NotificationList>(queryKeys.notifications)?.unread).toBe(4);
    applyEvent(qc, ev('notification.read', { id: null }));
    expect(qc.getQueryData<NotificationList>(queryKeys.notifications)?.unread).toBe(0);
    applyEvent(qc, ev('notification.deleted', { id: null }));
    expect(qc.getQueryData<NotificationList>(queryKeys.notifications)).toEqual({ notifications: [], unread: 0 });
    applyEvent(qc, ev('notification.new', { junk: true }));
    expect(qc.getQueryData<NotificationList>(queryKeys.notifications)?.notifications).toEqual([]);
  });
});
