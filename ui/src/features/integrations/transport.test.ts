// Apps and tool servers over both transports: each call's HTTP route and body, the Tauri command
// by name with its arguments; and `integration.updated` in the cache.
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Integration } from '../../api/calls';
import { ApiError } from '../../api/errors';
import { createHttpApi } from '../../api/http';
import { applyEvent, queryKeys } from '../../api/queries';
import { createTauriApi } from '../../api/tauri';
import { FakeWebSocket, jsonResponse, wireEvent } from '../../test/fakes';
import { GITHUB, IMAP, makeServer } from './fakeIntegrations';

beforeEach(() => {
  FakeWebSocket.instances = [];
  window.sessionStorage.clear();
});

afterEach(() => {
  clearMocks();
  delete (window as unknown as Record<string, unknown>).__TAURI_INTERNALS__;
});

const FILTERS = { keywords: ['salary'], emails: [], labels: [] };
const SERVER = { name: 'everything', transport: 'stdio', command: 'node', args: ['index.js', 'stdio'] };

describe('apps over HTTP', () => {
  it('sends each call to its route', async () => {
    window.history.replaceState(null, '', '/#token=i-tok');
    const calls: Array<{ method: string; path: string; body: unknown }> = [];
    const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const u = new URL(String(input));
      const method = init.method ?? 'GET';
      calls.push({ method, path: u.pathname, body: init.body ? JSON.parse(String(init.body)) : undefined });
      if (u.pathname === '/api/integrations/email_imap/connect') return jsonResponse(400, { detail: 'Enter your IMAP server, for example imap.fastmail.com.' });
      if (u.pathname === '/api/integrations') return jsonResponse(200, [GITHUB]);
      if (u.pathname.endsWith('/privacy-filters') && method === 'GET') return jsonResponse(200, FILTERS);
      if (u.pathname === '/api/integrations/mcp' && method === 'GET') return jsonResponse(200, []);
      if (u.pathname.startsWith('/api/integrations/mcp')) return jsonResponse(200, makeServer({ name: 'everything' }));
      return jsonResponse(200, { ok: true, emitted: 0, detail: 'fine' });
    });
    const api = createHttpApi({
      fetch: fetch as unknown as typeof globalThis.fetch,
      WebSocket: FakeWebSocket as unknown as typeof WebSocket,
      origin: 'http://127.0.0.1:4321',
    });
    expect((await api.listIntegrations())[0].id).toBe('github');
    await api.connectIntegration('github', { token: 't' });
    await api.connectIntegration('github', { token: 't' }, 'read');
    await expect(api.connectIntegration('email_imap', { host: '' })).rejects.toEqual(
      new ApiError(400, 'Enter your IMAP server, for example imap.fastmail.com.'),
    );
    await api.disconnectIntegration('github');
    await api.testIntegration('github');
    await api.setIntegrationAccess('github', 'read');
    expect(await api.privacyFilters('gmail')).toEqual(FILTERS);
    await api.setPrivacyFilters('gmail', FILTERS);
    await api.listFeeds();
    await api.syncFeed('email_imap');
    await api.listMcpServers();
    await api.addMcpServer(SERVER);
    await api.removeMcpServer('every thing');
    await api.setMcpAccess('everything', 'read');
    await api.setMcpEnabled('everything', false);
    await api.setMcpValues('everything', { API_KEY: 'k' });
    await api.setMcpValues('everything', { API_KEY: 'k' }, true);
    await api.testMcpServer('everything');
    expect(calls).toEqual([
      { method: 'GET', path: '/api/integrations', body: undefined },
      { method: 'POST', path: '/api/integrations/github/connect', body: { fields: { token: 't' } } },
      { method: 'POST', path: '/api/integrations/github/connect', body: { fields: { token: 't' }, access: 'read' } },
      { method: 'POST', path: '/api/integrations/email_imap/connect', body: { fields: { host: '' } } },
      { method: 'POST', path: '/api/integrations/github/disconnect', body: undefined },
      { method: 'POST', path: '/api/integrations/github/test', body: undefined },
      { method: 'PUT', path: '/api/integrations/github/access', body: { access: 'read' } },
      { method: 'GET', path: '/api/integrations/gmail/privacy-filters', body: undefined },
      { method: 'PUT', path: '/api/integrations/gmail/privacy-filters', body: FILTERS },
      { method: 'GET', path: '/api/integrations/feeds', body: undefined },
      { method: 'POST', path: '/api/integrations/feeds/email_imap/sync', body: undefined },
      { method: 'GET', path: '/api/integrations/mcp', body: undefined },
      { method: 'POST', path: '/api/integrations/mcp', body: SERVER },
      { method: 'DELETE', path: '/api/integrations/mcp/every%20thing', body: undefined },
      { method: 'POST', path: '/api/integrations/mcp/everything/access', body: { access: 'read' } },
      { method: 'POST', path: '/api/integrations/mcp/everything/enabled', body: { enabled: false } },
      { method: 'POST', path: '/api/integrations/mcp/everything/values', body: { values: { API_KEY: 'k' } } },
      { method: 'POST', path: '/api/integrations/mcp/everything/values', body: { values: { API_KEY: 'k' }, enable: true } },
      { method: 'POST', path: '/api/integrations/mcp/everything/test', body: undefined },
    ]);
  });
});

describe('apps over Tauri', () => {
  it('calls the integration commands', async () => {
    const calls: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === 'list_integrations') return [IMAP];
      if (cmd === 'connect_integration') return { auth_url: 'https://github.com/login/device', state: 's', user_code: 'AB-CD' };
      if (cmd === 'privacy_filters') return FILTERS;
      return { ok: true };
    });
    const api = createTauriApi();
    expect((await api.listIntegrations())[0].id).toBe('email_imap');
    expect(await api.connectIntegration('github', {})).toEqual({ auth_url: 'https://github.com/login/device', state: 's', user_code: 'AB-CD' });
    await api.connectIntegration('github', { token: 't' }, 'read');
    await api.disconnectIntegration('github');
    await api.testIntegration('github');
    await api.setIntegrationAccess('github', 'read_write');
    await api.privacyFilters('gmail');
    await api.setPrivacyFilters('gmail', FILTERS);
    await api.listFeeds();
    await api.syncFeed('gmail');
    await api.listMcpServers();
    await api.addMcpServer(SERVER);
    await api.removeMcpServer('everything');
    await api.setMcpAccess('everything', 'read');
    await api.setMcpEnabled('everything', true);
    await api.setMcpValues('everything', { API_KEY: 'k' });
    await api.testMcpServer('everything');
    expect(calls.filter(([cmd]) => !cmd.startsWith('plugin:'))).toEqual([
      ['list_integrations', {}],
      ['connect_integration', { id: 'github', fields: {}, access: null }],
      ['connect_integration', { id: 'github', fields: { token: 't' }, access: 'read' }],
      ['disconnect_integration', { id: 'github' }],
      ['test_integration', { id: 'github' }],
      ['set_integration_access', { id: 'github', access: 'read_write' }],
      ['privacy_filters', { id: 'gmail' }],
      ['set_privacy_filters', { id: 'gmail', filters: FILTERS }],
      ['list_feeds', {}],
      ['sync_feed', { source: 'gmail' }],
      ['list_mcp_servers', {}],
      ['add_mcp_server', { server: SERVER }],
      ['remove_mcp_server', { name: 'everything' }],
      ['set_mcp_access', { name: 'everything', access: 'read' }],
      ['set_mcp_enabled', { name: 'everything', enabled: true }],
      ['set_mcp_values', { name: 'everything', values: { API_KEY: 'k' }, enable: null }],
      ['test_mcp_server', { name: 'everything' }],
    ]);
  });
});

describe('integration.updated in the cache', () => {
  const ev = (data: unknown) => wireEvent('integration.updated', data, '2030-05-04T10:00:00Z');

  it('replaces the app, refetches for a new one, and refreshes feeds and tool servers', () => {
    const qc = new QueryClient();
    qc.setQueryData<Integration[]>(queryKeys.integrations, [GITHUB, IMAP]);
    qc.setQueryData(queryKeys.feeds, []);
    qc.setQueryData(queryKeys.mcpServers, []);
    applyEvent(qc, ev({ ...GITHUB, connected: true, status: 'connected', account_label: 'octocat' }));
    const list = qc.getQueryData<Integration[]>(queryKeys.integrations);
    expect(list?.map((a) => `${a.id}:${a.status}`)).toEqual(['github:connected', 'email_imap:disconnected']);
    expect(qc.getQueryState(queryKeys.integrations)?.isInvalidated).toBe(false);
    expect(qc.getQueryState(queryKeys.feeds)?.isInvalidated).toBe(true);
    expect(qc.getQueryState(queryKeys.mcpServers)?.isInvalidated).toBe(false);

    applyEvent(qc, ev({ ...GITHUB, id: 'mcp_files', display_name: 'files', auth_type: 'mcp' }));
    expect(qc.getQueryState(queryKeys.integrations)?.isInvalidated).toBe(true);
    expect(qc.getQueryState(queryKeys.mcpServers)?.isInvalidated).toBe(true);
  });

  it('ignores a payload that is not an app', () => {
    const qc = new QueryClient();
    qc.setQueryData<Integration[]>(queryKeys.integrations, [GITHUB]);
    applyEvent(qc, ev({ junk: true }));
    expect(qc.getQueryData<Integration[]>(queryKeys.integrations)).toEqual([GITHUB]);
    expect(qc.getQueryState(queryKeys.integrations)?.isInvalidated).toBe(false);
  });
});
