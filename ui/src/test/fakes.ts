// Test doubles shared by the unit tests: a WebSocket the test drives by hand, and a fake engine
// behind the SentientApi interface.
import type { ConfigSchema } from '../api/calls';
import CONFIG_SCHEMA_JSON from '../features/settings/form/config-schema.fixture.json';
import { vi } from 'vitest';
import type {
  ApprovalDecision,
  Bootstrap,
  ChatEvent,
  ChatEventListener,
  ChatRegenerateRequest,
  ChatSendRequest,
  ChatSteerRequest,
  FileInfo,
  MessageRow,
  PluginInfo,
  RuleDecision,
  RuleProposal,
  SearchHit,
  Session,
  CheckupLine,
  CheckupRequest,
  Config,
  EmbeddingTestResult,
  EngineEvent,
  Hardware,
  LocalAddress,
  LocalModels,
  LocalServer,
  ModelBusy,
  OnboardingRequest,
  Preset,
  PresetList,
  PresetSwitch,
  ProviderView,
  PullProgress,
  RoleChanges,
  Roles,
  SecretInfo,
  SecretStore,
  StoreStatus,
  SentientApi,
  StopState,
  TestResult,
  Task,
  Run,
  TaskPatch,
  TaskPreview,
  NewTaskRequest,
  ClarificationAnswer,
  ProgressUpdate,
  Notification,
  Hook,
  NewHook,
  InvokeReply,
  InvokeRequest,
  LanStatus,
  SandboxResult,
  SandboxStatus,
  StopAnswer,
  StopRequest,
  Subagent,
  KeyCheck,
  CatalogModel,
  ConnectStart,
  ConnectStatus,
  TerminalStatus,
  BrowserStatus,
  BrowserProfiles,
  BrowserProfileChange,
  NewBrowserProfile,
  OkReply,
  PersonInput,
  Node,
  Pairing,
  ImportResult,
  Memory,
  MemoryQuery,
  MemoryWorkspace,
  NotesFileName,
  ReviewItem,
  Summary,
  TopicCount,
  WriteResult,
} from '../api';
import type {
  ConnectAnswer,
  FeedStatus,
  FeedSyncReply,
  FilterLists,
  Integration,
  IntegrationAccess,
  IntegrationTest,
  MailServers,
  McpServerInfo,
  McpTestResult,
  NewMcpServer,
} from '../api/calls';
import { ApiError } from '../api/errors';

export class FakeWebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static instances: FakeWebSocket[] = [];

  readonly url: string;
  readyState = FakeWebSocket.CONNECTING;
  sent: string[] = [];
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  closedByClient = false;

  constructor(url: string) {
    this.url = url;
    FakeWebSocket.instances.push(this);
  }

  static latest(): FakeWebSocket {
    const ws = FakeWebSocket.instances.at(-1);
    if (!ws) throw new Error('no WebSocket was opened');
    return ws;
  }

  send(data: string) {
    if (this.readyState !== FakeWebSocket.OPEN) throw new Error('send on a socket that is not open');
    this.sent.push(data);
  }

  close() {
    this.closedByClient = true;
    this.readyState = FakeWebSocket.CLOSED;
    this.onclose?.(new Event('close') as CloseEvent);
  }

  // --- driven by the test (the "server") ---
  serverOpen() {
    this.readyState = FakeWebSocket.OPEN;
    this.onopen?.(new Event('open'));
  }

  serverSend(msg: unknown) {
    const data = typeof msg === 'string' ? msg : JSON.stringify(msg);
    this.onmessage?.(new MessageEvent('message', { data }));
  }

  serverDrop() {
    this.readyState = FakeWebSocket.CLOSED;
    this.onclose?.(new Event('close') as CloseEvent);
  }
}

/** The settings' JSON schema as the engine sends it (`GET /api/config/schema`), trimmed. */
export const CONFIG_SCHEMA = CONFIG_SCHEMA_JSON as unknown as ConfigSchema;

export const RUNNING: StopState = { stopped: false, stopped_at: null, source: null };

export function makeBootstrap(overrides: { stop?: StopState; onboarding_complete?: boolean } = {}): Bootstrap {
  return {
    version: '0.1.0',
    home: '/home/me/.sentient',
    assistant: {
      name: 'Sentient',
      user_name: 'Ada',
      timezone: 'Europe/Lisbon',
      location: 'Lisbon',
      language: 'en',
      onboarding_complete: overrides.onboarding_complete ?? true,
    },
    models: { primary: 'ollama_chat/qwen3:8b', fast: null, planner: null, executor: null, embedding: null, vision: null, voice: null },
    memory_enabled: false,
    unread_notifications: 0,
    ui: { theme: 'dark', accent: 'sentient', launch_at_login: false, minimize_to_tray: true },
    features: { voice: false, proactivity: false },
    stop: overrides.stop ?? RUNNING,
  };
}

// ----------------------------------------------------------------------- models & secrets

export const PROVIDERS: ProviderView[] = [
  {
    id: 'ollama_chat',
    label: 'Ollama',
    kind: 'local',
    key_required: false,
    key_set: false,
    api_base: 'http://localhost:11434',
    docs_url: 'https://ollama.com/download',
    suggested: ['ollama_chat/qwen3:8b', 'ollama_chat/qwen3:4b'],
    sign_in: false,
  },
  {
    id: 'ollama',
    label: 'Ollama (embeddings)',
    kind: 'local',
    key_required: false,
    key_set: false,
    api_base: 'http://localhost:11434',
    docs_url: 'https://ollama.com/download',
    suggested: ['ollama/nomic-embed-text'],
    sign_in: false,
  },
  {
    id: 'anthropic',
    label: 'Anthropic',
    kind: 'cloud',
    key_required: true,
    key_set: true,
    api_base: null,
    docs_url: 'https://console.anthropic.com/',
    suggested: ['anthropic/claude-sonnet-5', 'anthropic/claude-haiku-4-5'],
    sign_in: false,
  },
  {
    id: 'openai',
    label: 'OpenAI',
    kind: 'cloud',
    key_required: true,
    key_set: false,
    api_base: null,
    docs_url: 'https://platform.openai.com/api-keys',
    suggested: ['openai/gpt-5', 'openai/gpt-5-mini'],
    sign_in: false,
  },
];

/** Keys in a keychain that works: the usual computer. */
export const KEYCHAIN_STORE: StoreStatus = {
  store: 'keychain',
  keychain: 'available',
  file: null,
  file_possible: false,
  install_command: null,
  can_move_to_keychain: false,
};

export const SECRETS: SecretInfo[] = [
  { name: 'anthropic', set: true, source: 'keychain', kind: 'provider' },
  { name: 'openai', set: false, source: null, kind: 'provider' },
  { name: 'github', set: false, source: null, kind: 'integration' },
];

export const LOCAL_MODELS: LocalModels = {
  ollama: {
    reachable: true,
    models: [
      { name: 'qwen3:8b', size: 5.2e9, family: 'qwen3', parameter_size: '8.2B', is_embedding: false, capabilities: ['completion', 'tools'] },
      { name: 'nomic-embed-text:latest', size: 2.7e8, family: 'nomic-bert', parameter_size: '137M', is_embedding: true, capabilities: ['embedding'] },
    ],
  },
  lm_studio: { reachable: false, models: [] },
  pick: { primary: 'ollama_chat/qwen3:8b', embedding: 'ollama/nomic-embed-text:latest', tools: true },
};

export const ROLES: Roles = {
  primary: 'ollama_chat/qwen3:8b',
  fast: null,
  planner: null,
  executor: null,
  embedding: 'ollama/nomic-embed-text',
  vision: null,
  voice: null,
};

export const IDLE: ModelBusy = {
  busy: false,
  job: null,
  model: null,
  since: null,
  waiting: 0,
  deferred: 0,
  deferred_reason: null,
};

export function makeHardware(overrides: Partial<Hardware['recommendation']> = {}): Hardware {
  return {
    os: 'linux',
    ram_gb: 15.3,
    unified_memory: false,
    usable_vram_gb: 8,
    ollama_vram_gb: null,
    gpus: [{ name: 'NVIDIA GeForce RTX 4060 Laptop GPU', vendor: 'nvidia', vram_gb: 8, usable: true }],
    summary: 'NVIDIA GeForce RTX 4060 Laptop GPU with 8 GB of graphics memory, 15.3 GB of memory',
    recommendation: {
      tier: 'gpu_8',
      model: 'ollama_chat/qwen3:8b',
      name: 'qwen3:8b',
      context_length: 8192,
      runs_on: 'graphics',
      cloud_first: false,
      summary: 'qwen3:8b, reading 8,192 tokens at a time',
      note: 'Fits on the graphics card, so replies stay quick.',
      ...overrides,
    },
  };
}

export function makePreset(overrides: Partial<Preset> & { name: string }): Preset {
  return {
    builtin: false,
    available: true,
    reason: null,
    provider: null,
    description: '',
    roles: {},
    fallbacks: null,
    reasoning: null,
    context_length: null,
    context_length_per_role: null,
    active: false,
    ...overrides,
  };
}

export const PRESETS: PresetList = {
  active: 'Local only',
  modified: false,
  can_undo: false,
  undo_preset: null,
  presets: [
    makePreset({
      name: 'Local only',
      builtin: true,
      active: true,
      description: 'Everything runs on this computer with qwen3:8b.',
      roles: { primary: 'ollama_chat/qwen3:8b', fast: 'ollama_chat/qwen3:8b' },
    }),
    makePreset({
      name: 'Cloud',
      builtin: true,
      available: false,
      reason: 'Add a key for Anthropic, OpenAI or OpenRouter in Settings > Models to use cloud models.',
      description: 'A cloud model does every job except memory search.',
    }),
    makePreset({
      name: 'Mixed',
      builtin: true,
      provider: 'anthropic',
      description: 'A cloud main model, with quick jobs and memory search on this computer.',
      roles: { primary: 'anthropic/claude-sonnet-5' },
    }),
    makePreset({ name: 'Work', description: 'Your own setup.', roles: { primary: 'anthropic/claude-sonnet-5' } }),
  ],
};

/** A long job the test drives by hand: send lines, then finish or fail it. */
export type FakeStream<T> = {
  progress: (line: T) => void;
  finish: () => void;
  fail: (error: unknown) => void;
};

/** A download the test drives by hand: send progress lines, then finish or fail it. */
export type FakePull = {
  name: string;
  progress: (line: PullProgress) => void;
  finish: () => void;
  fail: (error: unknown) => void;
};

// ------------------------------------------------------------------------------ chats

export function makeSession(overrides: Partial<Session> & { id: string }): Session {
  return {
    title: '',
    channel: 'desktop',
    created_at: '2030-05-04T10:00:00Z',
    updated_at: '2030-05-04T10:00:00Z',
    untrusted: null,
    visited_hosts: null,
    ...overrides,
  };
}

export function makeRow(overrides: Partial<MessageRow> & { id: string; role: string }): MessageRow {
  return {
    content: '',
    thinking: null,
    tool_calls: [],
    tool_call_id: null,
    name: null,
    attachments: [],
    interjection: false,
    memory_sources: [],
    created_at: '2030-05-04T10:00:00Z',
    error: null,
    versions: [],
    version_index: 0,
    ...overrides,
  };
}

export function makeProposal(overrides: Partial<RuleProposal> = {}): RuleProposal {
  return {
    id: 'rp1',
    session_id: 's1',
    message_id: 'm1',
    said: 'never delete my emails',
    rule: 'never',
    keys: ['gmail_trash'],
    targets: [{ key: 'gmail_trash', app: 'Gmail', tool: 'Trash', label: 'Gmail > Trash' }],
    status: 'pending',
    created_at: '2030-05-04T10:00:00Z',
    decided_at: null,
    ...overrides,
  };
}

// ------------------------------------------------------------------------------ tasks

export function makeRun(overrides: Partial<Run> & { run_id: string }): Run {
  return {
    status: 'processing',
    created_at: '2030-05-04T10:00:00Z',
    execution_start_time: '2030-05-04T10:00:00Z',
    finished_at: null,
    plan: [],
    trigger_event_data: null,
    progress_updates: [],
    result: null,
    error: null,
    retry_of: null,
    pending_question: null,
    last_activity_at: '2030-05-04T10:00:00Z',
    memory_sources: [],
    brief_updated: false,
    ...overrides,
  };
}

export function makeTask(overrides: Partial<Task> & { task_id: string }): Task {
  return {
    name: 'A task',
    description: '',
    status: 'planning',
    priority: 1,
    assignee: 'ai',
    task_type: 'single',
    schedule: null,
    script: null,
    plan: [],
    runs: [],
    chat_history: [],
    clarifying_questions: [],
    swarm_details: null,
    enabled: true,
    model: null,
    browser_profile: null,
    deliver_to: 'default',
    original_context: { source: 'manual_creation' },
    error: null,
    next_execution_at: null,
    last_execution_at: null,
    created_at: '2030-05-04T10:00:00Z',
    updated_at: '2030-05-04T10:00:00Z',
    notepad: null,
    notepad_untrusted: null,
    brief: null,
    ...overrides,
  };
}

/** The engine's compile check, in the fake: code that says SYNTAX does not compile. */
function checkCompiles(code: string) {
  if (code.includes('SYNTAX')) throw new ApiError(400, 'The script has a syntax error on line 1: invalid syntax.');
}

/** The engine's merge of a partial script: new code or condition starts afresh; null makes a normal task. */
function mergeScript(task: Task, change: TaskPatch['script']): Partial<Task> {
  if (change === null || change === undefined) return { script: null, task_type: 'single' };
  const current = task.script;
  const code = change.code ?? current?.code;
  if (!code) throw new ApiError(400, 'A script job needs its code.');
  checkCompiles(code);
  const condition = change.condition ?? current?.condition ?? 'changed';
  const fresh = !current || code !== current.code || condition !== current.condition;
  return {
    task_type: 'script',
    script: {
      code,
      condition,
      then: change.then ?? current?.then ?? 'notify',
      last_result: fresh ? null : current.last_result,
      last_run_at: fresh ? null : current.last_run_at,
      last_error: fresh ? null : current.last_error,
    },
  };
}

/** The engine's check of a notepad edit: trimmed, "" clears, 400 over the default limit. */
function checkNotepad(text: string | null): string | null {
  const trimmed = (text ?? '').trim();
  if ([...trimmed].length > 1500) {
    throw new ApiError(400, `The notes are ${[...trimmed].length} characters; the limit is 1500. Shorten them and save again.`);
  }
  return trimmed === '' ? null : trimmed;
}

const BRIEF_KEYS = ['goal', 'constraints', 'decisions', 'done', 'open', 'current_focus', 'where', 'risks'] as const;

/** The engine's brief edit by the person: only the named fields; what they write is theirs. */
function applyBrief(current: Task['brief'], changes: Record<string, string | null>): Task['brief'] {
  const next: NonNullable<Task['brief']> = {
    goal: null,
    constraints: null,
    decisions: null,
    done: null,
    open: null,
    current_focus: null,
    where: null,
    risks: null,
    updated_at: null,
    updated_by: null,
    user_fields: [],
    ...current,
  };
  for (const [field, value] of Object.entries(changes)) {
    const key = BRIEF_KEYS.find((k) => k === field);
    if (!key) throw new ApiError(400, `The brief has no field ${field}.`);
    const text = value?.trim() || null;
    next[key] = text;
    next.user_fields = next.user_fields.filter((f) => f !== field);
    if (text) next.user_fields = [...next.user_fields, field];
  }
  return { ...next, updated_at: '2030-05-04T10:01:00Z', updated_by: 'user' };
}

// ------------------------------------------------------------------------------ notifications

export function makeSubagent(overrides: Partial<Subagent> & { subagent_id: string }): Subagent {
  return {
    session_id: 's1',
    parent_call_id: 'call_1',
    goal: 'Compare train times',
    status: 'running',
    background: true,
    summary: null,
    error: null,
    tool_calls: 0,
    started_at: '2030-05-04T10:00:00Z',
    finished_at: null,
    events: [],
    ...overrides,
  };
}

export function makeNotification(overrides: Partial<Notification> & { id: string }): Notification {
  return {
    kind: 'info',
    title: 'Something happened',
    message: '',
    payload: {},
    task_id: null,
    read: false,
    created_at: '2030-05-04T10:00:00Z',
    ...overrides,
  };
}

export function makeHook(overrides: Partial<Hook> & { id: string }): Hook {
  return {
    name: 'CI',
    url: `http://127.0.0.1:4321/hooks/${overrides.id}`,
    created_at: '2030-05-04T10:00:00Z',
    last_called_at: null,
    calls: 0,
    ...overrides,
  };
}

// ------------------------------------------------------------------------------ devices

export function makeNode(overrides: Partial<Node> & { node_id: string }): Node {
  return {
    name: 'My phone',
    kind: 'phone',
    platform: 'android',
    app_version: '1.0.0',
    capabilities: ['notify.show'],
    online: true,
    connection: 'lan',
    last_seen_at: '2030-05-04T10:00:00Z',
    battery: null,
    charging: null,
    worn: null,
    created_at: '2030-05-01T10:00:00Z',
    ...overrides,
  };
}

export const LAN_ON: LanStatus = {
  enabled: true,
  running: true,
  port: 7778,
  urls: ['wss://192.168.1.20:7778/ws/node'],
  web_urls: ['https://192.168.1.20:7778/node/'],
  fingerprint: 'AB:CD:EF:01',
  mdns: true,
  error: null,
};

export const LAN_OFF: LanStatus = { ...LAN_ON, enabled: false, running: false, urls: [], web_urls: [], fingerprint: null, mdns: false };

export function makePairing(overrides: Partial<Pairing> = {}): Pairing {
  return {
    code: '123456',
    expires_at: new Date(Date.now() + 10 * 60_000).toISOString(),
    lan_enabled: true,
    urls: ['wss://192.168.1.20:7778/ws/node'],
    web_url: 'https://192.168.1.20:7778/node/#code=123456',
    fingerprint: 'AB:CD:EF:01',
    qr: 'sentient://pair?url=wss%3A%2F%2F192.168.1.20%3A7778%2Fws%2Fnode&code=123456&fp=AB:CD:EF:01',
    qr_svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 21 21"><path d="M0 0h7v7H0z"/></svg>',
    ...overrides,
  };
}

/**
 * A live event as it may arrive on the wire: any type, any payload. Nothing checks the engine's
 * JSON on the way in (`toEngineEvent` only casts), so tests can play malformed or unknown events
 * to the handlers, which check what they read.
 */
export function wireEvent(type: string, data: unknown, ts: string = new Date().toISOString()): EngineEvent {
  return { type, data, ts } as EngineEvent;
}

/** A chat turn the test drives by hand: play events (chat and turn ids filled in), then end it. */
export type FakeTurn = {
  body: ChatSendRequest;
  /** 'regenerate' for a turn started by chatRegenerate (its body has no text). */
  kind: 'send' | 'regenerate';
  onEvent: ChatEventListener;
  /** Plays one event; `session_id` and `turn_id` default to the turn's. */
  emit: (ev: Record<string, unknown> & { type: ChatEvent['type'] }) => void;
  finish: () => void;
  fail: (error: unknown) => void;
};

/** A fake engine: every method is a vi.fn, and `emit` plays an event to subscribers. */
const TOPIC_NAMES = [
  'Personal Identity',
  'Interests & Lifestyle',
  'Work & Learning',
  'Health & Wellbeing',
  'Relationships & Social Life',
  'Financial',
  'Goals & Challenges',
  'Miscellaneous',
];

/** A remembered fact as the engine sends it. */
export function makeMemory(over: Partial<Memory> = {}): Memory {
  return {
    id: 1,
    content: 'User lives in Lisbon',
    topics: ['Personal Identity'],
    source: 'manual',
    memory_type: 'long-term',
    created_at: '2030-05-04T10:00:00Z',
    updated_at: '2030-05-04T10:00:00Z',
    expires_at: null,
    previous_content: null,
    status: 'active',
    review: null,
    similarity: null,
    score: null,
    ...over,
  };
}

/** A memory waiting for review. */
export function makeReviewItem(over: Partial<ReviewItem> = {}): ReviewItem {
  return {
    kind: 'fact',
    id: 50,
    text: 'User owns a boat',
    source: 'conversation',
    from: 'a web page',
    snippet: '…the user, who owns a boat…',
    session_id: 's1',
    created_at: '2030-05-04T10:00:00Z',
    expires_at: '2030-06-03T10:00:00Z',
    ...over,
  };
}

export function fakeApi(initial: Bootstrap) {
  const listeners = new Set<(ev: EngineEvent) => void>();
  let bootstrap = initial;
  let stop = initial.stop;
  let roles: Roles = { ...ROLES };
  const pulls: FakePull[] = [];
  const checkups: Array<FakeStream<CheckupLine> & { body: CheckupRequest }> = [];
  let sessions: Session[] = [];
  const messages = new Map<string, MessageRow[]>();
  let proposals: RuleProposal[] = [];
  const turns: FakeTurn[] = [];
  const steers: Array<{ body: ChatSteerRequest; onEvent: ChatEventListener }> = [];
  let tasks: Task[] = [];
  let preview: TaskPreview | ApiError = { name: 'A task', description: '', priority: 1, schedule: null, model_error: null };
  let notifications: Notification[] = [];
  let hooks: Hook[] = [];
  let nodes: Node[] = [];
  let lan: LanStatus = LAN_ON;
  let pairing: Pairing = makePairing();
  const browser: { status: BrowserStatus; profiles: BrowserProfiles['profiles'] } = {
    status: { available: true, running: false, engine: 'chromium', headless: true, tabs: [], error: null, profile: 'default', attached: false, needs_you: null } as BrowserStatus,
    profiles: [{ name: 'default', kind: 'launch', engine: '', endpoint: '', notes: '', running: false }],
  };
  const browserList = (): BrowserProfiles => ({
    active: browser.status.running ? browser.status.profile : null,
    profiles: browser.profiles.map((p) => ({ ...p })),
  });
  let memories: Memory[] = [];
  let helpers: Subagent[] = [];
  let held: ReviewItem[] = [];
  let summaries: Summary[] = [];
  let workspace: MemoryWorkspace = { soul: '', user: '', memory: '', today: '', yesterday: '' };
  let nextMemoryId = 100;
  const findMemory = (id: number): Memory => {
    const m = memories.find((x) => x.id === id);
    if (!m) throw new ApiError(404, `There is no memory ${id}.`);
    return m;
  };
  const findHeld = (id: number | string): ReviewItem => {
    const h = held.find((x) => String(x.id) === String(id));
    if (!h) throw new ApiError(404, 'That memory is not waiting for review.');
    return h;
  };
  const activate = (item: ReviewItem, content?: string) => {
    held = held.filter((h) => h !== item);
    memories = [
      makeMemory({
        id: Number(item.id),
        content: content ?? item.text,
        previous_content: content && content !== item.text ? item.text : null,
        source: item.source,
      }),
      ...memories,
    ];
  };
  const findNode = (id: string): Node => {
    const n = nodes.find((x) => x.node_id === id);
    if (!n) throw new ApiError(404, 'There is no device with that id.');
    return n;
  };
  const findNotification = (id: string): Notification => {
    const n = notifications.find((x) => x.id === id);
    if (!n) throw new ApiError(404, `There is no notification with the id ${id}.`);
    return n;
  };
  const findTask = (id: string): Task => {
    const t = tasks.find((x) => x.task_id === id);
    if (!t) throw new ApiError(404, 'There is no task with that id.');
    return t;
  };
  /** Changes a task the way the engine would and answers it. */
  const changeTask = (id: string, change: (t: Task) => Task): Task => {
    const changed = { ...change(findTask(id)), updated_at: '2030-05-04T10:01:00Z' };
    tasks = tasks.map((t) => (t.task_id === id ? changed : t));
    return changed;
  };
  const changeRun = (id: string, runId: string, change: (r: Run) => Run): Task =>
    changeTask(id, (t) => ({ ...t, runs: t.runs.map((r) => (r.run_id === runId ? change(r) : r)) }));
  const noSwitch: PresetSwitch = { preset: null, changed: [], missing: [], can_undo: true };
  const api = {
    transport: 'http' as const,
    health: vi.fn(async () => ({ ok: true, version: bootstrap.version, name: 'Sentient' })),
    bootstrap: vi.fn(async () => ({ ...bootstrap, stop })),
    onboarding: vi.fn(async (body: OnboardingRequest) => {
      bootstrap = {
        ...bootstrap,
        assistant: {
          ...bootstrap.assistant,
          user_name: body.user_name,
          name: body.assistant_name || 'Sentient',
          timezone: body.timezone ?? 'auto',
          location: body.location ?? '',
          onboarding_complete: true,
        },
      };
      return { ok: true };
    }),
    getStop: vi.fn(async () => stop),
    stopAll: vi.fn(async (source?: string) => {
      stop = { stopped: true, stopped_at: '2030-05-04T10:00:00Z', source: source ?? 'desktop' };
      return { ...stop, cancelled: 0 };
    }),
    resume: vi.fn(async (source?: string) => {
      stop = { stopped: false, stopped_at: null, source: source ?? 'desktop' };
      return stop;
    }),
    // The pages under test only read the sections they show; a full settings object is not needed.
    setTitle: vi.fn(),
    getConfig: vi.fn(async () => ({}) as Config),
    patchConfig: vi.fn(async () => ({ saved: true, config: {} as Config })),
    // The engine's real settings schema (trimmed to the sections Settings shows).
    configSchema: vi.fn(async (): Promise<ConfigSchema> => CONFIG_SCHEMA),
    modelProviders: vi.fn(async () => PROVIDERS),
    localModels: vi.fn(async (): Promise<LocalModels> => LOCAL_MODELS),
    setLocalAddress: vi.fn(async (_body: LocalAddress): Promise<LocalServer> => LOCAL_MODELS.ollama),
    testModel: vi.fn(
      async (): Promise<TestResult> => ({
        ok: true,
        latency_ms: 840,
        reply: 'Called find_city with {"name":"Pune"}',
        error: null,
        supports_tools: true,
      }),
    ),
    testEmbedding: vi.fn(async (): Promise<EmbeddingTestResult> => ({ ok: true, dim: 768, error: null })),
    getRoles: vi.fn(async () => roles),
    setRoles: vi.fn(async (changes: RoleChanges) => {
      roles = { ...roles, ...changes, primary: changes.primary ?? roles.primary };
      return roles;
    }),
    setFallbacks: vi.fn(async () => ({ ok: true })),
    modelBusy: vi.fn(async () => IDLE),
    hardware: vi.fn(async () => makeHardware()),
    pullModel: vi.fn(
      (name: string, onProgress: (line: PullProgress) => void) =>
        new Promise<void>((resolve, reject) => {
          pulls.push({ name, progress: onProgress, finish: resolve, fail: reject });
        }),
    ),
    listSecrets: vi.fn(async () => SECRETS),
    setSecret: vi.fn(async () => ({ ok: true })),
    checkProviderKey: vi.fn(async (provider: string): Promise<KeyCheck> =>
      provider === 'openrouter' ? { ok: true, detail: 'Your OpenRouter key works, with $4.50 of its limit left.' } : { ok: false, error: `No ${provider} key is saved yet. Paste one in Settings > Models first.` },
    ),
    connectOpenrouter: vi.fn(async (): Promise<ConnectStart> => ({ auth_url: 'https://openrouter.ai/auth?code_challenge=x', state: 'st1' })),
    openrouterSignInStatus: vi.fn(async (_state: string): Promise<ConnectStatus> => ({ status: 'connected', error: null })),
    modelCatalog: vi.fn(async (provider: string): Promise<CatalogModel[]> => [
      { id: `${provider}/a-model`, label: 'A model', free: false, tools: true, context_length: 128000 },
    ]),
    deleteSecret: vi.fn(async () => ({ ok: true })),
    secretsStore: vi.fn(async () => KEYCHAIN_STORE),
    chooseSecretsStore: vi.fn(async (_store: SecretStore) => ({ moved: 0, status: KEYCHAIN_STORE })),
    modelPresets: vi.fn(async (): Promise<PresetList> => PRESETS),
    applyModelPreset: vi.fn(async (name: string): Promise<PresetSwitch> => ({
      ...noSwitch,
      preset: PRESETS.presets.find((p) => p.name === name) ?? null,
    })),
    undoModelPreset: vi.fn(async (): Promise<PresetSwitch> => ({ ...noSwitch, can_undo: false })),
    saveModelPreset: vi.fn(async (body: { name: string }) => makePreset({ name: body.name, active: true })),
    renameModelPreset: vi.fn(async (_name: string, newName: string) => makePreset({ name: newName })),
    deleteModelPreset: vi.fn(async () => ({ ok: true })),
    modelCheckup: vi.fn(
      (body: CheckupRequest, onLine: (line: CheckupLine) => void) =>
        new Promise<void>((resolve, reject) => {
          checkups.push({ body, progress: onLine, finish: resolve, fail: reject });
        }),
    ),
    listSessions: vi.fn(async () => sessions),
    createSession: vi.fn(async () => {
      const id = `s${sessions.length + 1}`;
      sessions = [makeSession({ id }), ...sessions];
      return { session_id: id };
    }),
    renameSession: vi.fn(async (id: string, title: string) => {
      sessions = sessions.map((s) => (s.id === id ? { ...s, title } : s));
      return { ok: true };
    }),
    deleteSession: vi.fn(async (id: string) => {
      sessions = sessions.filter((s) => s.id !== id);
      return { ok: true };
    }),
    sessionMessages: vi.fn(async (id: string) => messages.get(id) ?? []),
    searchSessions: vi.fn(async (_q: string): Promise<SearchHit[]> => []),
    fileContent: vi.fn(async (name: string): Promise<Blob> => new Blob([`bytes of ${name}`], { type: 'image/png' })),
    uploadFile: vi.fn(
      async (file: Blob, name: string): Promise<FileInfo> => ({
        name,
        size: file.size,
        mime: file.type || 'application/octet-stream',
        modified_at: '2030-05-04T10:00:00Z',
      }),
    ),
    listFiles: vi.fn(async (): Promise<FileInfo[]> => []),
    listTools: vi.fn(async (): Promise<PluginInfo[]> => []),
    chatSend: vi.fn(
      (body: ChatSendRequest, onEvent: ChatEventListener) =>
        new Promise<void>((resolve, reject) => {
          const n = turns.length + 1;
          const ids = { session_id: body.session_id ?? 's1', turn_id: `t${n}` };
          turns.push({
            body,
            kind: 'send',
            onEvent,
            emit: (ev) => onEvent({ ...ids, ...ev } as unknown as ChatEvent),
            finish: resolve,
            fail: reject,
          });
        }),
    ),
    chatRegenerate: vi.fn(
      (body: ChatRegenerateRequest, onEvent: ChatEventListener) =>
        new Promise<void>((resolve, reject) => {
          const n = turns.length + 1;
          const ids = { session_id: body.session_id, turn_id: `t${n}` };
          turns.push({
            body: { session_id: body.session_id, text: '', client_id: body.client_id },
            kind: 'regenerate',
            onEvent,
            emit: (ev) => onEvent({ ...ids, ...ev } as unknown as ChatEvent),
            finish: resolve,
            fail: reject,
          });
        }),
    ),
    showAnswerVersion: vi.fn(async (id: string, messageId: string, index: number) => {
      // The stored answer that holds `messageId` shows version `index`: its text and error.
      const rows = (messages.get(id) ?? []).map((row) => {
        if (row.id !== messageId || row.versions.length === 0) return row;
        const version = row.versions[index];
        return { ...row, content: version.content, error: version.error, version_index: index };
      });
      messages.set(id, rows);
      return rows;
    }),
    chatSteer: vi.fn(async (body: ChatSteerRequest, onEvent: ChatEventListener) => {
      steers.push({ body, onEvent });
      return { queued: true };
    }),
    chatCancel: vi.fn(async (_sessionId: string) => {}),
    respondApproval: vi.fn(async (_approvalId: string, _decision: ApprovalDecision) => ({ resolved: true })),
    ruleProposals: vi.fn(async (sessionId: string) => proposals.filter((p) => p.session_id === sessionId && p.status === 'pending')),
    decideRuleProposal: vi.fn(async (id: string, decision: RuleDecision) => {
      const found = proposals.find((p) => p.id === id) ?? makeProposal({ id });
      const decided: RuleProposal = {
        ...found,
        status: decision === 'accept' ? 'accepted' : 'declined',
        decided_at: '2030-05-04T10:05:00Z',
      };
      proposals = proposals.map((p) => (p.id === id ? decided : p));
      return decided;
    }),
    listTasks: vi.fn(async () => tasks),
    getTask: vi.fn(async (id: string) => findTask(id)),
    previewTask: vi.fn(async (_prompt: string) => {
      if (preview instanceof ApiError) throw preview;
      return preview;
    }),
    createTask: vi.fn(async (body: NewTaskRequest) => {
      const task = makeTask({ task_id: `t${tasks.length + 1}`, name: body.prompt.split(' ').slice(0, 4).join(' '), description: body.prompt });
      tasks = [task, ...tasks];
      return task;
    }),
    patchTask: vi.fn(async (id: string, patch: TaskPatch) =>
      changeTask(id, (t) => {
        const { schedule, deliver_to, notepad, forget_earlier_runs: _forget, brief, script, ...rest } = patch;
        const kept = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Partial<Task>;
        return {
          ...t,
          ...kept,
          ...(schedule !== undefined ? { schedule: schedule === null ? null : ({ timezone: 'Europe/Lisbon', ...schedule } as Task['schedule']) } : {}),
          ...(deliver_to !== undefined ? { deliver_to: deliver_to ?? 'default' } : {}),
          ...(patch.enabled === false ? { next_execution_at: null } : {}),
          ...(notepad !== undefined ? { notepad: checkNotepad(notepad), notepad_untrusted: null } : {}),
          ...(brief ? { brief: applyBrief(t.brief, brief) } : {}),
          ...(script !== undefined ? mergeScript(t, script) : {}),
        };
      }),
    ),
    deleteTask: vi.fn(async (id: string) => {
      findTask(id);
      tasks = tasks.filter((t) => t.task_id !== id);
      return { ok: true };
    }),
    approveTask: vi.fn(async (id: string) => changeTask(id, (t) => ({ ...t, status: t.schedule?.type === 'recurring' ? 'active' : 'pending' }))),
    declineTask: vi.fn(async (id: string) => changeTask(id, (t) => ({ ...t, status: 'declined' }))),
    rerunTask: vi.fn(async (id: string) => {
      const copy = makeTask({ ...findTask(id), task_id: `t${tasks.length + 1}`, status: 'planning', runs: [] });
      tasks = [copy, ...tasks];
      return copy;
    }),
    runTaskNow: vi.fn(async (id: string) =>
      // A script job's Run now is a check: no run.
      changeTask(id, (t) =>
        t.script
          ? { ...t, status: 'processing' }
          : { ...t, status: 'processing', runs: [...t.runs, makeRun({ run_id: `r${t.runs.length + 1}`, plan: t.plan })] },
      ),
    ),
    archiveTask: vi.fn(async (id: string) => changeTask(id, (t) => ({ ...t, status: 'archived' }))),
    taskChat: vi.fn(async (id: string, message: string) =>
      changeTask(id, (t) => ({
        ...t,
        status: 'planning',
        chat_history: [...t.chat_history, { role: 'user', content: message, timestamp: '2030-05-04T10:01:00Z' }],
      })),
    ),
    answerClarifications: vi.fn(async (id: string, answers: ClarificationAnswer[]) =>
      changeTask(id, (t) => ({
        ...t,
        status: 'planning',
        clarifying_questions: t.clarifying_questions.map((q) => ({
          ...q,
          answer: answers.find((a) => a.question_id === q.question_id)?.answer_text ?? q.answer,
        })),
      })),
    ),
    cancelRun: vi.fn(async (id: string, runId: string) =>
      changeRun(id, runId, (r) => ({ ...r, status: 'cancelled', pending_question: null, finished_at: '2030-05-04T10:02:00Z' })),
    ),
    answerRun: vi.fn(async (id: string, runId: string, _answer: string) =>
      changeRun(id, runId, (r) => ({ ...r, status: 'processing', pending_question: null })),
    ),
    retryRun: vi.fn(async (id: string, runId: string) =>
      changeTask(id, (t) => ({
        ...t,
        status: 'processing',
        runs: [...t.runs, makeRun({ run_id: `r${t.runs.length + 1}`, retry_of: runId, plan: t.plan })],
      })),
    ),
    runEvents: vi.fn(async (id: string, runId: string): Promise<ProgressUpdate[]> =>
      findTask(id).runs.find((r) => r.run_id === runId)?.progress_updates ?? [],
    ),
    listNotifications: vi.fn(async (limit = 50, unreadOnly = false) => ({
      notifications: notifications.filter((n) => !unreadOnly || !n.read).slice(0, limit),
      unread: notifications.filter((n) => !n.read).length,
    })),
    readNotification: vi.fn(async (id: string) => {
      findNotification(id);
      notifications = notifications.map((n) => (n.id === id ? { ...n, read: true } : n));
      return { ok: true };
    }),
    readAllNotifications: vi.fn(async () => {
      notifications = notifications.map((n) => ({ ...n, read: true }));
      return { ok: true };
    }),
    deleteNotification: vi.fn(async (id: string) => {
      findNotification(id);
      notifications = notifications.filter((n) => n.id !== id);
      return { ok: true };
    }),
    deleteAllNotifications: vi.fn(async () => {
      notifications = [];
      return { ok: true };
    }),
    listHooks: vi.fn(async () => hooks),
    createHook: vi.fn(async (name: string): Promise<NewHook> => {
      const trimmed = name.trim();
      if (trimmed.length < 1 || trimmed.length > 80) throw new ApiError(400, 'A hook needs a name of 1 to 80 characters.');
      const hook = makeHook({ id: `h${hooks.length + 1}`, name: trimmed });
      hooks = [...hooks, hook];
      return { ...hook, secret: `secret-${hook.id}` };
    }),
    deleteHook: vi.fn(async (id: string) => {
      if (!hooks.some((h) => h.id === id)) throw new ApiError(404, 'There is no hook with that id.');
      hooks = hooks.filter((h) => h.id !== id);
      return { ok: true };
    }),
    listNodes: vi.fn(async () => nodes),
    getNode: vi.fn(async (id: string) => findNode(id)),
    renameNode: vi.fn(async (id: string, name: string) => {
      const renamed = { ...findNode(id), name: name.trim() };
      nodes = nodes.map((n) => (n.node_id === id ? renamed : n));
      return renamed;
    }),
    deleteNode: vi.fn(async (id: string) => {
      if (id === 'desktop') throw new ApiError(400, "The desktop app can't be removed.");
      findNode(id);
      nodes = nodes.filter((n) => n.node_id !== id);
      return { ok: true };
    }),
    invokeNode: vi.fn(async (_id: string, _body: InvokeRequest): Promise<InvokeReply> => ({ ok: true, data: { shown: true } })),
    createPairing: vi.fn(async () => pairing),
    lanStatus: vi.fn(async () => lan),
    browserStatus: vi.fn(async (): Promise<BrowserStatus> => browser.status),
    openBrowser: vi.fn(async (profile: string | null): Promise<BrowserStatus> => {
      const name = profile ?? 'default';
      if (!browser.profiles.some((p) => p.name === name)) throw new ApiError(409, `There is no browser profile called ${name}.`);
      browser.status = { ...browser.status, running: true, headless: false, profile: name, tabs: [{ index: 0, url: 'about:blank', title: '', active: true }] };
      browser.profiles = browser.profiles.map((p) => ({ ...p, running: p.name === name }));
      return browser.status;
    }),
    browserInput: vi.fn(async (_body: PersonInput): Promise<OkReply> => {
      if (!browser.status.needs_you) throw new ApiError(409, 'Nothing in the browser is waiting for you now.');
      return { ok: true };
    }),
    closeBrowser: vi.fn(async (): Promise<BrowserStatus> => {
      browser.status = { ...browser.status, running: false, headless: true, profile: 'default', tabs: [] };
      browser.profiles = browser.profiles.map((p) => ({ ...p, running: false }));
      return browser.status;
    }),
    browserProfiles: vi.fn(async (): Promise<BrowserProfiles> => browserList()),
    addBrowserProfile: vi.fn(async (body: NewBrowserProfile): Promise<BrowserProfiles> => {
      const name = (body.name ?? '').trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
      if (browser.profiles.some((p) => p.name === name)) throw new ApiError(409, `You already have a browser profile called ${name}.`);
      browser.profiles.push({ name, kind: body.kind ?? 'launch', engine: '', endpoint: body.endpoint ?? '', notes: body.notes ?? '', running: false });
      return browserList();
    }),
    changeBrowserProfile: vi.fn(async (name: string, change: BrowserProfileChange): Promise<BrowserProfiles> => {
      if (name === 'default' && change.name && change.name !== 'default') throw new ApiError(409, "The default profile can't be renamed.");
      browser.profiles = browser.profiles.map((p) => (p.name === name ? { ...p, name: change.name ?? p.name, notes: change.notes ?? p.notes } : p));
      return browserList();
    }),
    deleteBrowserProfile: vi.fn(async (name: string): Promise<BrowserProfiles> => {
      if (name === 'default') throw new ApiError(409, "The default profile can't be deleted.");
      browser.profiles = browser.profiles.filter((p) => p.name !== name);
      return browserList();
    }),
    terminalStatus: vi.fn(
      async (): Promise<TerminalStatus> => ({
        enabled: false,
        shell: 'bash',
        shell_path: '/bin/bash',
        allowed_folders: [],
        default_folder: null,
        blocked: ['formatting or wiping disks', 'shutting down, restarting or signing out'],
        running: [],
      }),
    ),
    terminalStop: vi.fn(async (_body: StopRequest): Promise<StopAnswer> => ({ stopped: true })),
    listSubagents: vi.fn(async (sessionId: string): Promise<Subagent[]> => helpers.filter((h) => h.session_id === sessionId)),
    cancelSubagent: vi.fn(async (id: string): Promise<Subagent> => {
      const helper = helpers.find((h) => h.subagent_id === id);
      if (!helper) throw new ApiError(404, `There is no helper with the id ${id}.`);
      if (helper.status === 'running') Object.assign(helper, { status: 'cancelled', error: 'Stopped.', finished_at: '2030-05-04T10:02:00Z' });
      return helper;
    }),
    testTaskScript: vi.fn(async (id: string, code: string | null): Promise<SandboxResult> => {
      const script = code ?? findTask(id).script?.code;
      if (script === undefined) throw new ApiError(409, 'This task has no script to test. Send the code to test with the request.');
      checkCompiles(script);
      return {
        ok: true,
        backend: 'process',
        stdout: 'In stock\n',
        stderr: '',
        result: 'In stock',
        files_created: [],
        tool_calls: 1,
        duration_ms: 80,
        error: null,
      };
    }),
    sandboxStatus: vi.fn(
      async (): Promise<SandboxStatus> => ({ enabled: true, backend: 'process', docker_available: false, python_version: '3.11.7', contained: true, note: null }),
    ),
    runScript: vi.fn(async (code: string): Promise<SandboxResult> => ({
      ok: true,
      backend: 'process',
      stdout: `ran ${code.length} characters\n`,
      stderr: '',
      result: `ran ${code.length} characters\n`,
      files_created: [],
      tool_calls: 0,
      duration_ms: 300,
      error: null,
    })),
    listMemories: vi.fn(async (query: MemoryQuery = {}) =>
      memories.filter(
        (m) =>
          (!query.q || m.content.toLowerCase().includes(query.q.toLowerCase())) &&
          (!query.topic || m.topics.includes(query.topic)) &&
          (!query.source || m.source === query.source),
      ),
    ),
    createMemory: vi.fn(async (content: string, source?: string): Promise<WriteResult> => {
      if (!content.trim()) throw new ApiError(400, 'Say what to remember: the fact is empty.');
      const same = memories.find((m) => m.content === content.trim());
      if (same) return { action: 'SKIP', id: same.id, content };
      const id = nextMemoryId++;
      memories = [makeMemory({ id, content: content.trim(), source: source ?? 'manual', topics: ['Miscellaneous'] }), ...memories];
      return { action: 'ADD', id, content };
    }),
    updateMemory: vi.fn(async (id: number, content: string) => {
      const old = findMemory(id);
      const updated = { ...old, content, previous_content: old.content };
      memories = memories.map((m) => (m.id === id ? updated : m));
      return updated;
    }),
    deleteMemory: vi.fn(async (id: number) => {
      findMemory(id);
      memories = memories.filter((m) => m.id !== id);
      return { deleted: true };
    }),
    deleteMemorySource: vi.fn(async (source: string) => {
      const before = memories.length + held.length;
      memories = memories.filter((m) => m.source !== source);
      held = held.filter((h) => h.source !== source);
      return { deleted: before - memories.length - held.length };
    }),
    memoryTopics: vi.fn(
      async (): Promise<TopicCount[]> =>
        TOPIC_NAMES.map((name) => ({ name, description: '', count: memories.filter((m) => m.topics.includes(name)).length })),
    ),
    memoryGraph: vi.fn(async () => ({
      nodes: memories.map((m) => ({
        id: m.id,
        label: m.content.slice(0, 25),
        title: m.content,
        content: m.content,
        topics: m.topics,
        memory_type: m.memory_type,
        source: m.source,
        created_at: m.created_at,
      })),
      links: [],
    })),
    memorySummaries: vi.fn(async () => summaries),
    memoryWorkspace: vi.fn(async () => workspace),
    saveMemoryWorkspace: vi.fn(async (name: NotesFileName, content: string) => {
      workspace = { ...workspace, [name]: content };
      return { saved: true };
    }),
    memoryPersonas: vi.fn(async () => [
      { id: 'friendly', name: 'Friendly', description: 'Warm and conversational.', soul_md: '# Sentient\n\nBe warm.' },
      { id: 'concise', name: 'Concise', description: 'Short, to-the-point answers.', soul_md: '# Sentient\n\nBe brief.' },
    ]),
    memoryReview: vi.fn(async () => ({ items: held, count: held.length, expire_days: 30 })),
    approveMemory: vi.fn(async (_kind: string, id: number | string, content?: string) => {
      if (content !== undefined && !content.trim()) throw new ApiError(400, "The memory can't be empty.");
      activate(findHeld(id), content);
      return { ok: true };
    }),
    discardMemory: vi.fn(async (_kind: string, id: number | string) => {
      const item = findHeld(id);
      held = held.filter((h) => h !== item);
      return { ok: true };
    }),
    approveAllMemories: vi.fn(async (from: string) => {
      const matching = held.filter((h) => h.from === from);
      for (const item of matching) activate(item);
      return { approved: matching.length };
    }),
    /** Each line of the file is a fact held for review; one already held or known is skipped. */
    importMemories: vi.fn(async (file: Blob, name: string): Promise<ImportResult> => {
      const source = `file:${name}`;
      // jsdom's Blob has no text(); FileReader reads it.
      const text = await new Promise<string>((resolve) => {
        const reader = new FileReader();
        reader.onload = () => resolve(String(reader.result));
        reader.readAsText(file);
      });
      const facts = text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      if (facts.length === 0) throw new ApiError(400, `Sentient found no text in ${name}.`);
      const known = new Set([...memories.map((m) => m.content), ...held.map((h) => h.text)]);
      let pending = 0;
      for (const text of facts) {
        if (known.has(text)) continue;
        known.add(text);
        pending += 1;
        held = [
          makeReviewItem({ id: nextMemoryId++, text, source, from: name, snippet: facts.join(' '), session_id: null }),
          ...held,
        ];
      }
      return { added: pending, updated: 0, skipped: facts.length - pending, pending, source };
    }),
    // Apps and tool servers: none here; the Integrations page's tests fake them
    // (features/integrations/fakeIntegrations.ts).
    listIntegrations: vi.fn(async (): Promise<Integration[]> => []),
    connectIntegration: vi.fn(
      async (_id: string, _fields: Record<string, string>, _access?: IntegrationAccess): Promise<ConnectAnswer> => {
        throw new ApiError(404, "Sentient couldn't find that.");
      },
    ),
    disconnectIntegration: vi.fn(async (_id: string): Promise<Integration> => {
      throw new ApiError(404, "Sentient couldn't find that.");
    }),
    cancelConnect: vi.fn(async (_id: string): Promise<Integration> => {
      throw new ApiError(404, "Sentient couldn't find that.");
    }),
    discoverEmail: vi.fn(async (_address: string): Promise<MailServers> => {
      throw new ApiError(400, "Sentient couldn't find the mail servers for that address.");
    }),
    testIntegration: vi.fn(async (_id: string): Promise<IntegrationTest> => ({ ok: false, detail: "It isn't connected." })),
    setIntegrationAccess: vi.fn(async (_id: string, _access: IntegrationAccess): Promise<Integration> => {
      throw new ApiError(404, "Sentient couldn't find that.");
    }),
    privacyFilters: vi.fn(async (_id: string): Promise<FilterLists> => ({ keywords: [], emails: [], labels: [] })),
    setPrivacyFilters: vi.fn(async (_id: string, _filters: FilterLists) => ({ ok: true })),
    listFeeds: vi.fn(async (): Promise<FeedStatus[]> => []),
    syncFeed: vi.fn(async (_source: string): Promise<FeedSyncReply> => ({ ok: false, skipped: 'not connected', emitted: 0 })),
    listMcpServers: vi.fn(async (): Promise<McpServerInfo[]> => []),
    addMcpServer: vi.fn(async (_server: NewMcpServer): Promise<McpServerInfo> => {
      throw new ApiError(400, 'Give the command that starts the server.');
    }),
    removeMcpServer: vi.fn(async (_name: string) => ({ ok: true })),
    setMcpAccess: vi.fn(async (_name: string, _access: IntegrationAccess): Promise<McpServerInfo> => {
      throw new ApiError(404, "Sentient couldn't find that.");
    }),
    setMcpEnabled: vi.fn(async (_name: string, _enabled: boolean): Promise<McpServerInfo> => {
      throw new ApiError(404, "Sentient couldn't find that.");
    }),
    setMcpValues: vi.fn(async (_name: string, _values: Record<string, string>, _enable?: boolean): Promise<McpServerInfo> => {
      throw new ApiError(404, "Sentient couldn't find that.");
    }),
    testMcpServer: vi.fn(async (_name: string): Promise<McpTestResult> => ({ ok: false, tools: [] })),
    subscribe: vi.fn((listener: (ev: EngineEvent) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    }),
  } satisfies SentientApi;
  return {
    api,
    listeners,
    emit(type: string, data: unknown) {
      for (const l of [...listeners]) l(wireEvent(type, data));
    },
    setStop(s: StopState) {
      stop = s;
    },
    setMemories(list: Memory[]) {
      memories = list;
    },
    setHelpers(list: Subagent[]) {
      helpers = list;
    },
    setHeld(list: ReviewItem[]) {
      held = list;
    },
    setSummaries(list: Summary[]) {
      summaries = list;
    },
    setWorkspace(w: MemoryWorkspace) {
      workspace = w;
    },
    /** Downloads started so far, oldest first. */
    pulls,
    setSessions(list: Session[]) {
      sessions = list;
    },
    setMessages(sessionId: string, rows: MessageRow[]) {
      messages.set(sessionId, rows);
    },
    setProposals(list: RuleProposal[]) {
      proposals = list;
    },
    setTasks(list: Task[]) {
      tasks = list;
    },
    /** What the next preview answers: a preview, or an error to throw. */
    setPreview(answer: TaskPreview | ApiError) {
      preview = answer;
    },
    tasks: () => tasks,
    setNotifications(list: Notification[]) {
      notifications = list;
    },
    notifications: () => notifications,
    setHooks(list: Hook[]) {
      hooks = list;
    },
    hooks: () => hooks,
    setNodes(list: Node[]) {
      nodes = list;
    },
    nodes: () => nodes,
    setLan(status: LanStatus) {
      lan = status;
    },
    setPairing(p: Pairing) {
      pairing = p;
    },
    /** Chat turns started so far, oldest first. */
    turns,
    /** Steers sent so far, oldest first. */
    steers,
    lastTurn(): FakeTurn {
      const turn = turns.at(-1);
      if (!turn) throw new Error('no chat turn was started');
      return turn;
    },
    /** Check-ups started so far, oldest first. */
    checkups,
    lastCheckup() {
      const run = checkups.at(-1);
      if (!run) throw new Error('no check-up was started');
      return run;
    },
    lastPull(): FakePull {
      const pull = pulls.at(-1);
      if (!pull) throw new Error('no download was started');
      return pull;
    },
  };
}

export const ONBOARDING_BODY: OnboardingRequest = {
  user_name: 'Ada',
  assistant_name: 'Sentient',
  timezone: 'Europe/Lisbon',
  location: 'Lisbon',
  professional_context: null,
  personal_context: null,
  persona: null,
  daily_brief: null,
};

/** A JSON answer as fetch gives it, for the transports' tests. */
export function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}
