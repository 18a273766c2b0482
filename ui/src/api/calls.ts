// The window's plain request/answer calls, each declared once: its arguments, its answer, the
// HTTP request it sends and the Tauri command it runs. Both transports build these calls from
// this table, and SentientApi's plain methods are derived from it (streams, uploads, chat and
// live events are hand-written there and in each transport).
import {
  commands,
  type ApiError as WireApiError,
  type InvokeRequest_Deserialize as WireInvokeRequest,
  type Value as JsonValue,
  type TaskPatch_Deserialize as WireTaskPatch,
  type ConnectAnswer_Serialize,
  type FeedStatus_Serialize,
  type FeedSyncReply_Serialize,
  type FilterLists_Serialize,
  type Integration_Serialize,
  type IntegrationTest as WireIntegrationTest,
  type McpServerInfo_Serialize,
  type McpTestResult_Serialize,
  type NewMcpServer_Deserialize,
} from '../bindings';
import type {
  ApprovalDecision,
  Bootstrap,
  ClarificationAnswer,
  Config,
  EmbeddingTestRequest,
  EmbeddingTestResult,
  Fallbacks,
  FileInfo,
  Hardware,
  Health,
  Hook,
  InvokeReply,
  InvokeRequest,
  LanStatus,
  LocalModels,
  Memory,
  MemoryGraph,
  MemoryQuery,
  MemoryWorkspace,
  MessageRow,
  ModelBusy,
  NewHook,
  NewTaskRequest,
  Node,
  NotesFileName,
  NotificationList,
  OkReply,
  OkResponse,
  OnboardingRequest,
  Pairing,
  PatchConfigResponse,
  PersonaPreset,
  PluginInfo,
  Preset,
  PresetList,
  PresetSwitch,
  ProgressUpdate,
  ProviderView,
  ReviewInbox,
  ReviewKind,
  RoleChanges,
  Roles,
  RuleDecision,
  RuleProposal,
  RuleProposalStatus,
  SavePresetRequest,
  SearchHit,
  SecretInfo,
  Session,
  StopAllResponse,
  StopSource,
  StopState,
  Summary,
  Task,
  TaskPatch,
  TaskPreview,
  TestRequest,
  TestResult,
  TopicCount,
  WriteResult,
} from './types';

/** One HTTP request of the browser transport (a body is sent as JSON). */
export type HttpRequest = { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string; body?: unknown };

/** A generated command's answer: its value, or the engine's typed error. */
export type Wire<T> = Promise<{ status: 'ok'; data: T } | { status: 'error'; error: WireApiError }>;

/**
 * One call through both doors: the HTTP request, and the Tauri command (a function, so only the
 * desktop transport runs it). `R` is the answer the window reads; the command must answer it.
 */
export type Doors<R> = { http: HttpRequest; tauri: () => Wire<R> };

const GET = (path: string): HttpRequest => ({ method: 'GET', path });
const POST = (path: string, body?: unknown): HttpRequest => ({ method: 'POST', path, body });
const PUT = (path: string, body: unknown): HttpRequest => ({ method: 'PUT', path, body });
const PATCH = (path: string, body: unknown): HttpRequest => ({ method: 'PATCH', path, body });
const DELETE = (path: string): HttpRequest => ({ method: 'DELETE', path });
const enc = encodeURIComponent;
const runPath = (taskId: string, runId: string) => `/api/tasks/${enc(taskId)}/runs/${enc(runId)}`;

/**
 * An answer the generated type spells more loosely than the window reads it (each use says
 * which fields); what arrives is the contract's shape. The one cast for answers.
 */
function loose<T>(wire: Wire<unknown>): Wire<T> {
  return wire as Wire<T>;
}

// Apps and tool servers (contract section 5), as the engine sends them. The generated names are
// aliased here so the Integrations page reads them from the api folder.
/** An app Sentient connects to; tool servers are listed too, as `mcp_<name>`. */
export type Integration = Integration_Serialize;
/** What a connect answers: the app, or where to sign in (with GitHub's device code). */
export type ConnectAnswer = ConnectAnswer_Serialize;
export type IntegrationTest = WireIntegrationTest;
/** Read only (`read`) or not (`read_write`). */
export type IntegrationAccess = 'read' | 'read_write';
export type FilterLists = FilterLists_Serialize;
export type FeedStatus = FeedStatus_Serialize;
export type FeedSyncReply = FeedSyncReply_Serialize;
export type McpServerInfo = McpServerInfo_Serialize;
export type McpTestResult = McpTestResult_Serialize;
/** `POST /api/integrations/mcp`: fields left out take the engine's defaults. */
export type NewMcpServer = NewMcpServer_Deserialize;

// Each entry's return type names the answer, so the Tauri command is checked against it.
export const CALLS = {
  health: (): Doors<Health> => ({ http: GET('/api/health'), tauri: () => commands.health() }),
  bootstrap: (): Doors<Bootstrap> => ({ http: GET('/api/bootstrap'), tauri: () => commands.bootstrap() }),
  onboarding: (body: OnboardingRequest): Doors<OkResponse> => ({
    http: POST('/api/onboarding', body),
    tauri: () => commands.onboarding(body),
  }),
  getStop: (): Doors<StopState> => ({ http: GET('/api/stop'), tauri: () => commands.getStop() }),
  stopAll: (source: StopSource = 'desktop'): Doors<StopAllResponse> => ({
    http: POST('/api/stop-all', { source }),
    tauri: () => commands.stopAll(source),
  }),
  resume: (source: StopSource = 'desktop'): Doors<StopState> => ({
    http: POST('/api/resume', { source }),
    tauri: () => commands.resume(source),
  }),
  getConfig: (): Doors<Config> => ({ http: GET('/api/config'), tauri: () => commands.getConfig() }),
  patchConfig: (partial: Record<string, unknown>): Doors<PatchConfigResponse> => ({
    http: PATCH('/api/config', partial),
    tauri: () => commands.patchConfig(partial as JsonValue),
  }),

  // Models & secrets.
  /** Every model provider, with whether its key is set. */
  modelProviders: (): Doors<ProviderView[]> => ({
    http: GET('/api/models/providers'),
    tauri: () => commands.modelProviders(),
  }),
  /** What Ollama and LM Studio have installed (never fails; `reachable: false` when not running). */
  localModels: (): Doors<LocalModels> => ({ http: GET('/api/models/local'), tauri: () => commands.localModels() }),
  /** One short call to a model; says whether it can use tools. */
  testModel: (body: TestRequest): Doors<TestResult> => ({
    http: POST('/api/models/test', body),
    tauri: () => commands.testModel(body),
  }),
  /** One embedding call; says the vector size. */
  testEmbedding: (body: EmbeddingTestRequest): Doors<EmbeddingTestResult> => ({
    http: POST('/api/models/test-embedding', body),
    tauri: () => commands.testEmbedding(body),
  }),
  setRoles: (changes: RoleChanges): Doors<Roles> => ({
    http: PUT('/api/models/roles', changes),
    tauri: () => commands.setRoles(changes),
  }),
  setFallbacks: (fallbacks: Fallbacks): Doors<OkReply> => ({
    http: PUT('/api/models/fallbacks', fallbacks),
    tauri: () => commands.setFallbacks(fallbacks),
  }),
  /** What the local model is doing now (live as the `model.busy` event). */
  modelBusy: (): Doors<ModelBusy> => ({ http: GET('/api/models/busy'), tauri: () => commands.modelBusy() }),
  /** What this computer can run; `refresh` checks again instead of using what was found before. */
  hardware: (refresh = false): Doors<Hardware> => ({
    http: GET(`/api/system/hardware?refresh=${refresh ? 'true' : 'false'}`),
    tauri: () => commands.hardware(refresh),
  }),
  /** Which keys are set and where from; never their values. */
  listSecrets: (): Doors<SecretInfo[]> => ({ http: GET('/api/secrets'), tauri: () => commands.listSecrets() }),
  /** Saves a key in this computer's keychain; it is never sent back. */
  setSecret: (name: string, value: string): Doors<OkReply> => ({
    http: PUT(`/api/secrets/${enc(name)}`, { value }),
    tauri: () => commands.setSecret(name, { value }),
  }),
  deleteSecret: (name: string): Doors<OkReply> => ({
    http: DELETE(`/api/secrets/${enc(name)}`),
    tauri: () => commands.deleteSecret(name),
  }),

  // Model presets.
  /** Every setup (built-ins first), the active one, and whether the last switch can be undone. */
  modelPresets: (): Doors<PresetList> => ({ http: GET('/api/models/presets'), tauri: () => commands.modelPresets() }),
  /** Switches every role to a setup in one save; says what its models still need. */
  applyModelPreset: (name: string): Doors<PresetSwitch> => ({
    http: POST(`/api/models/presets/${enc(name)}/apply`),
    tauri: () => commands.applyModelPreset(name),
  }),
  /** Puts back the setup from before the last switch (one step only). */
  undoModelPreset: (): Doors<PresetSwitch> => ({
    http: POST('/api/models/presets/undo'),
    tauri: () => commands.undoModelPreset(),
  }),
  /** Saves the current setup under a name and makes it active. */
  saveModelPreset: (body: SavePresetRequest): Doors<Preset> => ({
    http: POST('/api/models/presets', body),
    tauri: () => commands.saveModelPreset(body),
  }),
  renameModelPreset: (name: string, newName: string): Doors<Preset> => ({
    http: PATCH(`/api/models/presets/${enc(name)}`, { name: newName }),
    tauri: () => commands.renameModelPreset(name, { name: newName }),
  }),
  deleteModelPreset: (name: string): Doors<OkReply> => ({
    http: DELETE(`/api/models/presets/${enc(name)}`),
    tauri: () => commands.deleteModelPreset(name),
  }),

  // Chats (contract section 2, "Sessions").
  /** Chats, newest first. */
  listSessions: (limit = 100): Doors<Session[]> => ({
    http: GET(`/api/sessions?limit=${limit}`),
    tauri: () => commands.listSessions(limit),
  }),
  /** Starts a new, empty chat. */
  createSession: (): Doors<{ session_id: string }> => ({
    http: POST('/api/sessions'),
    tauri: () => commands.createSession(),
  }),
  renameSession: (id: string, title: string): Doors<OkReply> => ({
    http: PATCH(`/api/sessions/${enc(id)}`, { title }),
    tauri: () => commands.renameSession(id, { title }),
  }),
  deleteSession: (id: string): Doors<OkReply> => ({
    http: DELETE(`/api/sessions/${enc(id)}`),
    tauri: () => commands.deleteSession(id),
  }),
  /** The stored transcript, oldest first. */
  sessionMessages: (id: string, limit = 500): Doors<MessageRow[]> => ({
    http: GET(`/api/sessions/${enc(id)}/messages?limit=${limit}`),
    tauri: () => commands.sessionMessages(id, limit),
  }),
  /** Messages with the words, best first, each with a snippet (matches marked with [ and ]). */
  searchSessions: (q: string): Doors<SearchHit[]> => ({
    http: GET(`/api/sessions/search?q=${enc(q)}`),
    tauri: () => commands.searchSessions(q),
  }),

  // Files and tools.
  listFiles: (): Doors<FileInfo[]> => ({ http: GET('/api/files'), tauri: () => commands.listFiles() }),
  listTools: (): Doors<PluginInfo[]> => ({ http: GET('/api/tools'), tauri: () => commands.listTools() }),

  // Chat (contract section 1).
  /** Answers an approval question; `resolved: false` when it had already ended. */
  respondApproval: (approvalId: string, decision: ApprovalDecision): Doors<{ resolved: boolean }> => ({
    http: POST('/api/approvals', { approval_id: approvalId, decision }),
    tauri: () => commands.approvalRespond({ approval_id: approvalId, decision }),
  }),

  // Rules from chat.
  /** A chat's "Make this a rule?" proposals (default: the pending ones), oldest first. */
  ruleProposals: (sessionId: string, status: RuleProposalStatus = 'pending'): Doors<RuleProposal[]> => ({
    http: GET(`/api/sessions/${enc(sessionId)}/rule-proposals?status=${status}`),
    tauri: () => commands.ruleProposals(sessionId, status),
  }),
  decideRuleProposal: (id: string, decision: RuleDecision): Doors<RuleProposal> => ({
    http: POST(`/api/rule-proposals/${enc(id)}`, { decision }),
    tauri: () => commands.decideRuleProposal(id, { decision }),
  }),

  // Tasks (contract section 4). The generated Task spells a few JSON fields loosely (progress
  // parameters, `deliver_to`), hence `loose` on every answer that is a Task.
  /** Every task, newest first, each with its runs (oldest first). */
  listTasks: (): Doors<Task[]> => ({ http: GET('/api/tasks'), tauri: () => loose(commands.listTasks()) }),
  getTask: (id: string): Doors<Task> => ({
    http: GET(`/api/tasks/${enc(id)}`),
    tauri: () => loose(commands.getTask(id)),
  }),
  /** What the planner makes of a prompt (name, description, priority, schedule); saves nothing. */
  previewTask: (prompt: string): Doors<TaskPreview> => ({
    http: POST('/api/tasks/preview', { prompt }),
    tauri: () => commands.previewTask({ prompt }),
  }),
  /** Saves a task as `planning`; the plan arrives later as `task.updated`. */
  createTask: (body: NewTaskRequest): Doors<Task> => ({
    http: POST('/api/tasks', body),
    tauri: () => loose(commands.createTask(body)),
  }),
  patchTask: (id: string, patch: TaskPatch): Doors<Task> => ({
    http: PATCH(`/api/tasks/${enc(id)}`, patch),
    // The generated patch type spells nested shapes loosely; the engine checks what arrives.
    tauri: () => loose(commands.patchTask(id, patch as unknown as WireTaskPatch)),
  }),
  deleteTask: (id: string): Doors<OkReply> => ({
    http: DELETE(`/api/tasks/${enc(id)}`),
    tauri: () => commands.deleteTask(id),
  }),
  approveTask: (id: string): Doors<Task> => ({
    http: POST(`/api/tasks/${enc(id)}/approve`),
    tauri: () => loose(commands.approveTask(id)),
  }),
  declineTask: (id: string): Doors<Task> => ({
    http: POST(`/api/tasks/${enc(id)}/decline`),
    tauri: () => loose(commands.declineTask(id)),
  }),
  /** A new copy of the task, planned afresh. */
  rerunTask: (id: string): Doors<Task> => ({
    http: POST(`/api/tasks/${enc(id)}/rerun`),
    tauri: () => loose(commands.rerunTask(id)),
  }),
  runTaskNow: (id: string): Doors<Task> => ({
    http: POST(`/api/tasks/${enc(id)}/run-now`),
    tauri: () => loose(commands.runTaskNow(id)),
  }),
  archiveTask: (id: string): Doors<Task> => ({
    http: POST(`/api/tasks/${enc(id)}/archive`),
    tauri: () => loose(commands.archiveTask(id)),
  }),
  /** A change request in the task's own chat; the task is planned again. */
  taskChat: (id: string, message: string): Doors<Task> => ({
    http: POST(`/api/tasks/${enc(id)}/chat`, { message }),
    tauri: () => loose(commands.taskChat(id, { message })),
  }),
  /** Answers the planner's questions; the task is planned again. */
  answerClarifications: (id: string, answers: ClarificationAnswer[]): Doors<Task> => ({
    http: POST(`/api/tasks/${enc(id)}/clarifications`, { answers }),
    tauri: () => loose(commands.answerClarifications(id, { answers })),
  }),
  /** Cancels a working or waiting run. */
  cancelRun: (id: string, runId: string): Doors<Task> => ({
    http: POST(`${runPath(id, runId)}/cancel`),
    tauri: () => loose(commands.cancelRun(id, runId)),
  }),
  /** Answers the question a waiting run asks; the run carries on. */
  answerRun: (id: string, runId: string, answer: string): Doors<Task> => ({
    http: POST(`${runPath(id, runId)}/answer`, { answer }),
    tauri: () => loose(commands.answerRun(id, runId, { answer })),
  }),
  /** Tries a failed or cancelled run again, carrying on from where it stopped. */
  retryRun: (id: string, runId: string): Doors<Task> => ({
    http: POST(`${runPath(id, runId)}/retry`),
    tauri: () => loose(commands.retryRun(id, runId)),
  }),
  /** A run's whole progress log. */
  runEvents: (id: string, runId: string): Doors<ProgressUpdate[]> => ({
    http: GET(`${runPath(id, runId)}/events`),
    // Progress parameters are spelled loosely, as in Task.
    tauri: () => loose(commands.runEvents(id, runId)),
  }),

  // Notifications (contract section 6).
  /** Newest first (`limit` 50 unless given), with the unread count of the whole feed. */
  listNotifications: (limit = 50, unreadOnly = false): Doors<NotificationList> => ({
    http: GET(`/api/notifications?limit=${limit}&unread_only=${unreadOnly ? 'true' : 'false'}`),
    // The generated payload type is loose (a map of strings); what arrives is the contract's.
    tauri: () => loose(commands.listNotifications(limit, unreadOnly)),
  }),
  readNotification: (id: string): Doors<OkReply> => ({
    http: POST(`/api/notifications/${enc(id)}/read`),
    tauri: () => commands.readNotification(id),
  }),
  readAllNotifications: (): Doors<OkReply> => ({
    http: POST('/api/notifications/read-all'),
    tauri: () => commands.readAllNotifications(),
  }),
  deleteNotification: (id: string): Doors<OkReply> => ({
    http: DELETE(`/api/notifications/${enc(id)}`),
    tauri: () => commands.deleteNotification(id),
  }),
  deleteAllNotifications: (): Doors<OkReply> => ({
    http: DELETE('/api/notifications'),
    tauri: () => commands.deleteAllNotifications(),
  }),

  // Webhooks (contract section 16).
  listHooks: (): Doors<Hook[]> => ({ http: GET('/api/hooks'), tauri: () => commands.listHooks() }),
  /** Makes a hook (name 1-80 characters); the answer holds its secret, shown only this once. */
  createHook: (name: string): Doors<NewHook> => ({
    http: POST('/api/hooks', { name }),
    tauri: () => commands.createHook({ name }),
  }),
  deleteHook: (id: string): Doors<OkReply> => ({
    http: DELETE(`/api/hooks/${enc(id)}`),
    tauri: () => commands.deleteHook(id),
  }),

  // Devices (contract section 13).
  /** Every device, online ones first. */
  listNodes: (): Doors<Node[]> => ({ http: GET('/api/nodes'), tauri: () => commands.listNodes() }),
  getNode: (id: string): Doors<Node> => ({
    http: GET(`/api/nodes/${enc(id)}`),
    tauri: () => commands.getNode(id),
  }),
  renameNode: (id: string, name: string): Doors<Node> => ({
    http: PATCH(`/api/nodes/${enc(id)}`, { name }),
    tauri: () => commands.renameNode(id, { name }),
  }),
  /** Revokes the device's token and disconnects it (400 for the desktop app itself). */
  deleteNode: (id: string): Doors<OkReply> => ({
    http: DELETE(`/api/nodes/${enc(id)}`),
    tauri: () => commands.deleteNode(id),
  }),
  /** Asks a device to do one thing; a device that can't answers `ok: false` with why. */
  invokeNode: (id: string, body: InvokeRequest): Doors<InvokeReply> => ({
    http: POST(`/api/nodes/${enc(id)}/invoke`, body),
    // The generated shapes of params, data and error are loose (maps of strings); what crosses
    // is the contract's JSON.
    tauri: () => loose(commands.invokeNode(id, body as unknown as WireInvokeRequest)),
  }),
  /** A single-use pairing code for 10 minutes, with its QR code and link. */
  createPairing: (): Doors<Pairing> => ({ http: POST('/api/nodes/pairing'), tauri: () => commands.createPairing() }),
  lanStatus: (): Doors<LanStatus> => ({ http: GET('/api/nodes/lan'), tauri: () => commands.lanStatus() }),

  // Memory (contract section 7).
  /** Remembered facts, newest first; with `q`, the best matches of the hybrid search. */
  listMemories: (query: MemoryQuery = {}): Doors<Memory[]> => ({
    http: GET(`/api/memories${queryString(query)}`),
    tauri: () =>
      commands.listMemories(query.topic ?? null, query.q ?? null, query.source ?? null, query.limit ?? null, query.offset ?? null),
  }),
  /** Remembers a fact the way a chat would (a duplicate answers SKIP with the fact it repeats). */
  createMemory: (content: string, source?: string): Doors<WriteResult> => ({
    http: POST('/api/memories', source ? { content, source } : { content }),
    tauri: () => commands.createMemory({ content, source: source ?? null }),
  }),
  /** New words for a fact; the old ones are kept as `previous_content`. */
  updateMemory: (id: number, content: string): Doors<Memory> => ({
    http: PUT(`/api/memories/${id}`, { content }),
    tauri: () => commands.updateMemory(id, { content }),
  }),
  deleteMemory: (id: number): Doors<{ deleted: boolean }> => ({
    http: DELETE(`/api/memories/${id}`),
    tauri: () => commands.deleteMemory(id),
  }),
  /** Forgets every fact from a source, held ones too. */
  deleteMemorySource: (source: string): Doors<{ deleted: number }> => ({
    http: DELETE(`/api/memories/source/${enc(source)}`),
    tauri: () => commands.deleteMemorySource(source),
  }),
  memoryTopics: (): Doors<TopicCount[]> => ({ http: GET('/api/memories/topics'), tauri: () => commands.memoryTopics() }),
  /** Facts linked where they are close in meaning. */
  memoryGraph: (): Doors<MemoryGraph> => ({ http: GET('/api/memories/graph'), tauri: () => commands.memoryGraph() }),
  /** Summaries of older parts of chats, newest first, each with its chat's mark. */
  memorySummaries: (limit = 50): Doors<Summary[]> => ({
    http: GET(`/api/memories/summaries?limit=${limit}`),
    tauri: () => commands.memorySummaries(limit),
  }),
  /** SOUL.md, USER.md, MEMORY.md in full, and today's and yesterday's notes. */
  memoryWorkspace: (): Doors<MemoryWorkspace> => ({
    http: GET('/api/memories/workspace'),
    tauri: () => commands.memoryWorkspace(),
  }),
  saveMemoryWorkspace: (name: NotesFileName, content: string): Doors<{ saved: boolean }> => ({
    http: PUT(`/api/memories/workspace/${name}`, { content }),
    tauri: () => commands.saveMemoryWorkspace(name, { content }),
  }),
  /** SOUL.md presets with the assistant's and the user's names. */
  memoryPersonas: (): Doors<PersonaPreset[]> => ({
    http: GET('/api/memories/personas'),
    tauri: () => commands.memoryPersonas(),
  }),
  /** Memories waiting for review, newest first, with how many in all. */
  memoryReview: (): Doors<ReviewInbox> => ({ http: GET('/api/memories/review'), tauri: () => commands.memoryReview() }),
  /** Lets a held memory in, in new words when `content` is given. */
  approveMemory: (kind: ReviewKind, id: number | string, content?: string): Doors<OkReply> => ({
    http: POST(`/api/memories/review/${kind}/${enc(String(id))}/approve`, content === undefined ? {} : { content }),
    tauri: () => commands.approveMemory(kind, String(id), { content: content ?? null }),
  }),
  discardMemory: (kind: ReviewKind, id: number | string): Doors<OkReply> => ({
    http: DELETE(`/api/memories/review/${kind}/${enc(String(id))}`),
    tauri: () => commands.discardMemory(kind, String(id)),
  }),
  /** Lets in every held memory from one place ("Gmail", "resume.pdf"). */
  approveAllMemories: (from: string): Doors<{ approved: number }> => ({
    http: POST('/api/memories/review/approve-all', { from }),
    tauri: () => commands.approveAllMemories({ from }),
  }),
  // Apps and tool servers (contract section 5).
  /** Every app (the catalog, then each tool server as `mcp_<name>`), with its state and tools. */
  listIntegrations: (): Doors<Integration[]> => ({
    http: GET('/api/integrations'),
    tauri: () => commands.listIntegrations(),
  }),
  /**
   * Connects an app with its setup fields (`access` is saved first): the app when it is done,
   * or where to sign in (`auth_url`, and for GitHub's device flow the `user_code` to type).
   */
  connectIntegration: (id: string, fields: Record<string, string>, access?: IntegrationAccess): Doors<ConnectAnswer> => ({
    http: POST(`/api/integrations/${enc(id)}/connect`, access ? { fields, access } : { fields }),
    tauri: () => commands.connectIntegration(id, fields, access ?? null),
  }),
  /** Forgets the app's sign-in; the engine turns off the tasks that use it. */
  disconnectIntegration: (id: string): Doors<Integration> => ({
    http: POST(`/api/integrations/${enc(id)}/disconnect`),
    tauri: () => commands.disconnectIntegration(id),
  }),
  /** One cheap request to the app; `detail` says what happened. */
  testIntegration: (id: string): Doors<IntegrationTest> => ({
    http: POST(`/api/integrations/${enc(id)}/test`),
    tauri: () => commands.testIntegration(id),
  }),
  /** Read only (`read`) or not (`read_write`). */
  setIntegrationAccess: (id: string, access: IntegrationAccess): Doors<Integration> => ({
    http: PUT(`/api/integrations/${enc(id)}/access`, { access }),
    tauri: () => commands.setIntegrationAccess(id, access),
  }),
  /** What Sentient skips in the app: words, senders and labels. */
  privacyFilters: (id: string): Doors<FilterLists> => ({
    http: GET(`/api/integrations/${enc(id)}/privacy-filters`),
    tauri: () => commands.privacyFilters(id),
  }),
  setPrivacyFilters: (id: string, filters: FilterLists): Doors<OkReply> => ({
    http: PUT(`/api/integrations/${enc(id)}/privacy-filters`, filters),
    tauri: () => commands.setPrivacyFilters(id, filters),
  }),
  /** The change feeds of Gmail, Google Calendar and IMAP email: when each was last checked. */
  listFeeds: (): Doors<FeedStatus[]> => ({ http: GET('/api/integrations/feeds'), tauri: () => commands.listFeeds() }),
  /** Checks one app for changes now. */
  syncFeed: (source: string): Doors<FeedSyncReply> => ({
    http: POST(`/api/integrations/feeds/${enc(source)}/sync`),
    tauri: () => commands.syncFeed(source),
  }),
  /** Every tool server (MCP) with its state, missing values and tools. */
  listMcpServers: (): Doors<McpServerInfo[]> => ({
    http: GET('/api/integrations/mcp'),
    tauri: () => commands.listMcpServers(),
  }),
  /** Saves a server and waits up to 15 s for it to connect; answers it as it is then. */
  addMcpServer: (server: NewMcpServer): Doors<McpServerInfo> => ({
    http: POST('/api/integrations/mcp', server),
    tauri: () => commands.addMcpServer(server),
  }),
  /** Stops a server and forgets it, its saved values and its Read only setting. */
  removeMcpServer: (name: string): Doors<OkReply> => ({
    http: DELETE(`/api/integrations/mcp/${enc(name)}`),
    tauri: () => commands.removeMcpServer(name),
  }),
  setMcpAccess: (name: string, access: IntegrationAccess): Doors<McpServerInfo> => ({
    http: POST(`/api/integrations/mcp/${enc(name)}/access`, { access }),
    tauri: () => commands.setMcpAccess(name, access),
  }),
  /** Turns a server on (it connects) or off (it stops; its tools go away). */
  setMcpEnabled: (name: string, enabled: boolean): Doors<McpServerInfo> => ({
    http: POST(`/api/integrations/mcp/${enc(name)}/enabled`, { enabled }),
    tauri: () => commands.setMcpEnabled(name, enabled),
  }),
  /** Saves a server's settings or header values in the keychain (a blank one keeps the saved value). */
  setMcpValues: (name: string, values: Record<string, string>, enable?: boolean): Doors<McpServerInfo> => ({
    http: POST(`/api/integrations/mcp/${enc(name)}/values`, enable === undefined ? { values } : { values, enable }),
    tauri: () => commands.setMcpValues(name, values, enable ?? null),
  }),
  /** Connects to the server and lists its tools. */
  testMcpServer: (name: string): Doors<McpTestResult> => ({
    http: POST(`/api/integrations/mcp/${enc(name)}/test`),
    tauri: () => commands.testMcpServer(name),
  }),
};

/** `?topic=&q=&source=&limit=&offset=` with only the parts given. */
function queryString(query: MemoryQuery): string {
  const parts = Object.entries(query)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k}=${enc(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The name of a plain call. */
export type CallName = keyof typeof CALLS;

/**
 * The plain calls as the window makes them: each entry's arguments (defaults make them optional)
 * and a promise of its answer.
 */
export type Calls = {
  // Written `keyof typeof CALLS` (not CallName) so TypeScript carries the entries' doc comments.
  [K in keyof typeof CALLS]: (typeof CALLS)[K] extends (...args: infer A) => Doors<infer R>
    ? (...args: A) => Promise<R>
    : never;
};

/**
 * Every plain call, sent the way one transport sends a call. TypeScript can't follow a loop over
 * the keys entry by entry, so the built object is cast to Calls once here; each entry is typed
 * where it is declared.
 */
export function buildCalls(send: <R>(doors: Doors<R>) => Promise<R>): Calls {
  const built: Partial<Record<CallName, (...args: unknown[]) => Promise<unknown>>> = {};
  for (const name of Object.keys(CALLS) as CallName[]) {
    const entry = CALLS[name] as (...args: unknown[]) => Doors<unknown>;
    built[name] = (...args) => send(entry(...args));
  }
  return built as Calls;
}
