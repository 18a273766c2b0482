// Test double for the Integrations page: a small catalog of apps and tool servers behind the fake
// engine's vi.fn calls, answering the way the engine does (connect, access, filters, feeds, MCP).
// Only the tests import it.
import type {
  FeedStatus,
  FilterLists,
  Integration,
  IntegrationAccess,
  McpServerInfo,
  NewMcpServer,
} from '../../api/calls';
import { ApiError } from '../../api/errors';
import type { fakeApi } from '../../test/fakes';

type Engine = ReturnType<typeof fakeApi>;

export function makeApp(over: Partial<Integration> & { id: string }): Integration {
  return {
    display_name: over.id,
    description: '',
    category: 'utilities',
    icon: over.id,
    auth_type: 'api_key',
    connected: false,
    account_label: null,
    status: 'disconnected',
    error: null,
    setup: { fields: [], instructions_md: '', docs_url: null },
    privacy_filters: { supported: false, fields: [] },
    triggers: [],
    alternative_for: null,
    access: 'read_write',
    tools: [],
    ...over,
  };
}

export const GMAIL = makeApp({
  id: 'gmail',
  display_name: 'Gmail',
  description: 'Search your mail, read messages, draft and send replies.',
  category: 'communication',
  auth_type: 'oauth',
  setup: {
    fields: [
      { key: 'client_id', label: 'OAuth Client ID', secret: false, required: true, help: 'From Google Cloud Console.' },
      { key: 'client_secret', label: 'OAuth Client secret', secret: true, required: true, help: 'Shown next to the client ID.' },
    ],
    instructions_md: '1. Open Google Cloud Console.\n2. Create a client of type **Desktop app**.',
    docs_url: 'https://developers.google.com/gmail/api/quickstart',
  },
  privacy_filters: { supported: true, fields: ['keywords', 'emails', 'labels'] },
  triggers: [{ event: 'new_email', label: 'New email' }],
});

export const IMAP = makeApp({
  id: 'email_imap',
  display_name: 'Email (IMAP)',
  description: 'Any email account that offers IMAP.',
  category: 'communication',
  auth_type: 'manual',
  setup: {
    fields: [
      { key: 'host', label: 'IMAP server', secret: false, required: false, help: 'Left empty, Sentient finds it from your address.' },
      { key: 'port', label: 'Port', secret: false, required: false, help: 'Left empty: 993 for ssl.' },
      { key: 'username', label: 'Email address', secret: false, required: true, help: 'Your email address.' },
      { key: 'password', label: 'App password', secret: true, required: true, help: 'Made in your account settings.' },
    ],
    instructions_md: '1. Find your server names.\n2. Create an app password.\n\nSee [the guide](https://example.com/imap) or `imap.example.com`.',
    docs_url: null,
  },
  privacy_filters: { supported: true, fields: ['keywords', 'emails', 'labels'] },
  tools: [
    { name: 'email_imap_search', description: 'Searches your email.', risk: 'read' },
    { name: 'email_imap_send', description: 'Sends an email from your account.', risk: 'send' },
  ],
});

export const GITHUB = makeApp({
  id: 'github',
  display_name: 'GitHub',
  description: 'Search issues and pull requests.',
  category: 'development',
  setup: {
    fields: [{ key: 'token', label: 'Personal access token', secret: true, required: true, help: 'A fine-grained token.' }],
    instructions_md: 'Paste a token.',
    docs_url: 'https://docs.github.com/tokens',
  },
  tools: [
    { name: 'github_search_issues', description: 'Searches GitHub issues.', risk: 'read' },
    { name: 'github_create_issue', description: 'Opens a new issue.', risk: 'write' },
    { name: 'github_comment', description: 'Posts a comment.', risk: 'send' },
    { name: 'github_run', description: 'Runs a workflow.', risk: 'exec' },
  ],
});

export const SLACK = makeApp({
  id: 'slack',
  display_name: 'Slack',
  description: 'Read and send Slack messages.',
  category: 'communication',
  setup: {
    fields: [{ key: 'token', label: 'Bot token', secret: true, required: true, help: 'Starts with xoxb-.' }],
    instructions_md: "Slack isn't available in this version of Sentient yet.",
    docs_url: null,
  },
});

export const WEB = makeApp({
  id: 'web',
  display_name: 'Web pages',
  description: "Reads a web page's text.",
  category: 'core',
  auth_type: 'builtin',
  connected: true,
  status: 'connected',
  tools: [{ name: 'web_fetch', description: 'Reads a page.', risk: 'read' }],
});

export const WEATHER = makeApp({
  id: 'weather',
  display_name: 'Weather',
  description: 'The weather now and the forecast anywhere, from Open-Meteo; no key needed.',
  category: 'core',
  auth_type: 'builtin',
  connected: true,
  status: 'connected',
  tools: [
    { name: 'weather_current', description: 'The weather right now at a place.', risk: 'read' },
    { name: 'weather_forecast', description: 'The forecast for the next days.', risk: 'read' },
  ],
});

export const ACCUWEATHER = makeApp({
  id: 'accuweather',
  display_name: 'AccuWeather',
  description: 'Weather from AccuWeather instead of Open-Meteo.',
  category: 'core',
  alternative_for: 'weather',
  setup: {
    fields: [{ key: 'api_key', label: 'API key', secret: true, required: true, help: "Kept in this computer's keychain." }],
    instructions_md: '1. Sign up at developer.accuweather.com.\n2. Paste the key here.',
    docs_url: 'https://developer.accuweather.com/getting-started',
  },
});

export function makeServer(over: Partial<McpServerInfo> & { name: string }): McpServerInfo {
  return {
    transport: 'stdio',
    command: 'npx',
    args: ['-y', 'server'],
    url: '',
    env_keys: [],
    auth: 'none',
    header_keys: [],
    missing_values: [],
    signed_in: false,
    signing_in: false,
    enabled: true,
    access: 'read_write',
    status: 'connected',
    tools: [
      { name: `mcp_${over.name}_echo`, mcp_name: 'echo', description: 'Echoes back the input.', risk: 'read', per_call: false },
      { name: `mcp_${over.name}_write`, mcp_name: 'write', description: 'Writes a file.', risk: 'write', per_call: false },
    ],
    error: null,
    ...over,
  };
}

export function makeFeed(over: Partial<FeedStatus> & { source: string }): FeedStatus {
  return {
    display_name: over.source,
    kind: 'imap_idle',
    connected: true,
    active: true,
    status: 'ok',
    last_sync_at: null,
    last_success_at: null,
    last_error: null,
    note: null,
    failures: 0,
    next_attempt_at: null,
    emitted: 0,
    ...over,
  };
}

/** Puts the apps and servers behind the fake engine; answers change them as the engine would. */
export function installIntegrations(
  engine: Engine,
  initial: { apps?: Integration[]; servers?: McpServerInfo[]; feeds?: FeedStatus[] } = {},
) {
  let apps = initial.apps ?? [GMAIL, IMAP, GITHUB, SLACK, WEB];
  let servers = initial.servers ?? [];
  const feeds = initial.feeds ?? [];
  const filters = new Map<string, FilterLists>();
  const find = (id: string) => {
    const app = apps.find((a) => a.id === id);
    if (!app) throw new ApiError(404, `There is no app called ${id}.`);
    return app;
  };
  const change = (id: string, next: Partial<Integration>) => {
    const changed = { ...find(id), ...next };
    apps = apps.map((a) => (a.id === id ? changed : a));
    return changed;
  };
  const server = (name: string) => {
    const s = servers.find((x) => x.name === name);
    if (!s) throw new ApiError(404, `There is no tool server called ${name}.`);
    return s;
  };
  const changeServer = (name: string, next: Partial<McpServerInfo>) => {
    const changed = { ...server(name), ...next };
    servers = servers.map((s) => (s.name === name ? changed : s));
    return changed;
  };
  // Each app as it was before a connect still unfinished, for a cancel to go back to (as the engine keeps it).
  const before = new Map<string, Integration>();
  const api = engine.api;
  api.listIntegrations.mockImplementation(async () => apps);
  api.connectIntegration.mockImplementation(async (id: string, fields: Record<string, string>, access?: IntegrationAccess) => {
    const app = find(id);
    if (!before.has(id)) before.set(id, app);
    if (access) change(id, { access });
    if (id === 'slack') throw new ApiError(400, "Slack isn't available in this version of Sentient yet.");
    const empty = app.setup.fields.find((f) => f.required && !fields[f.key]?.trim());
    if (empty) {
      const sentence = `Enter the ${empty.label}.`;
      change(id, { status: 'error', error: sentence });
      throw new ApiError(400, sentence);
    }
    // Without a server the engine finds it from the address, or says it couldn't.
    if (id === 'email_imap' && !fields.host?.trim()) {
      try {
        await api.discoverEmail(fields.username ?? '');
      } catch (error) {
        const sentence = error instanceof ApiError ? error.detail : String(error);
        change(id, { status: 'error', error: sentence });
        throw error;
      }
    }
    before.delete(id);
    return change(id, { connected: true, status: 'connected', error: null, account_label: fields.username || 'ada' });
  });
  api.discoverEmail.mockImplementation(async (address: string) => {
    const domain = address.split('@')[1] ?? '';
    if (domain === 'fastmail.com') {
      return {
        address,
        source: 'provider',
        provider: 'Fastmail',
        host: 'imap.fastmail.com',
        port: 993,
        security: 'ssl',
        username: address,
        smtp_host: 'smtp.fastmail.com',
        smtp_port: 465,
        app_password_url: 'https://app.fastmail.com/settings/security/apps',
        note: null,
      };
    }
    throw new ApiError(400, `Sentient couldn't find the mail servers for ${domain}. Enter them under More settings.`);
  });
  api.cancelConnect.mockImplementation(async (id: string) => {
    const was = before.get(id) ?? find(id);
    before.delete(id);
    const back = was.status === 'connected' ? was : { ...was, connected: false, status: 'disconnected' as const, error: null };
    return change(id, { connected: back.connected, status: back.status, error: back.error, account_label: back.account_label });
  });
  api.disconnectIntegration.mockImplementation(async (id: string) =>
    change(id, { connected: false, status: 'disconnected', account_label: null, error: null }),
  );
  api.testIntegration.mockImplementation(async (id: string) => {
    const app = find(id);
    return app.connected ? { ok: true, detail: `Signed in as ${app.account_label ?? 'you'}` } : { ok: false, detail: `${app.display_name} isn't connected.` };
  });
  api.setIntegrationAccess.mockImplementation(async (id: string, access: IntegrationAccess) => change(id, { access }));
  api.privacyFilters.mockImplementation(async (id: string) => filters.get(id) ?? { keywords: [], emails: [], labels: [] });
  api.setPrivacyFilters.mockImplementation(async (id: string, lists: FilterLists) => {
    filters.set(id, lists);
    return { ok: true };
  });
  api.listFeeds.mockImplementation(async () => feeds);
  api.syncFeed.mockImplementation(async () => ({ ok: true, emitted: 2 }));
  api.listMcpServers.mockImplementation(async () => servers);
  api.addMcpServer.mockImplementation(async (body: NewMcpServer) => {
    if (!/^[A-Za-z0-9_-]{1,40}$/.test(body.name)) {
      throw new ApiError(400, 'Give the server a short name made of letters, digits, - or _ (at most 40).');
    }
    if (servers.some((s) => s.name === body.name)) throw new ApiError(400, `There is already a server called ${body.name}.`);
    const envKeys = Object.keys(body.env ?? {});
    const missing = Object.entries(body.env ?? {})
      .filter(([, v]) => !v)
      .map(([k]) => k);
    const made = makeServer({
      name: body.name,
      transport: body.transport,
      command: body.command ?? '',
      args: body.args ?? [],
      url: body.url ?? '',
      env_keys: envKeys,
      header_keys: Object.keys(body.headers ?? {}),
      missing_values: missing,
      access: body.access ?? 'read_write',
      status: missing.length ? 'error' : 'connected',
      error: missing.length ? `This server needs ${missing.join(', ')} before it can start.` : null,
      tools: missing.length ? [] : makeServer({ name: body.name }).tools,
    });
    servers = [...servers, made];
    return made;
  });
  api.removeMcpServer.mockImplementation(async (name: string) => {
    server(name);
    servers = servers.filter((s) => s.name !== name);
    return { ok: true };
  });
  api.setMcpAccess.mockImplementation(async (name: string, access: IntegrationAccess) => changeServer(name, { access }));
  api.setMcpEnabled.mockImplementation(async (name: string, enabled: boolean) =>
    changeServer(name, { enabled, status: enabled ? 'connected' : 'disabled' }),
  );
  api.setMcpValues.mockImplementation(async (name: string, values: Record<string, string>) => {
    const s = server(name);
    const missing = s.missing_values.filter((k) => !values[k]);
    return changeServer(name, {
      missing_values: missing,
      status: missing.length ? 'error' : 'connected',
      error: missing.length ? s.error : null,
      tools: missing.length ? [] : makeServer({ name }).tools,
    });
  });
  api.testMcpServer.mockImplementation(async (name: string) => {
    const s = server(name);
    return s.status === 'connected' ? { ok: true, tools: s.tools.map((t) => t.name) } : { ok: false, tools: [], error: s.error ?? 'It did not answer.' };
  });
  return {
    apps: () => apps,
    servers: () => servers,
    setApp(app: Integration) {
      apps = apps.map((a) => (a.id === app.id ? app : a));
    },
  };
}
