// The shapes that cross the door. They come from the generated bindings (Rust types through
// tauri-specta), so the window and the engine can't drift apart; this is the one file to touch
// if a generated name changes.
// The generator gives each type two views: `_Serialize` is what the engine sends (every field
// present), `_Deserialize` what it accepts (defaulted fields optional).
import type {
  Bootstrap_Serialize,
  CheckAction_Serialize,
  Check_Serialize,
  CheckupLine_Serialize,
  CheckupRequest_Deserialize,
  Missing_Serialize,
  PresetList_Serialize,
  PresetSwitch_Serialize,
  Preset_Serialize,
  RoleChange_Serialize,
  RolePick_Serialize,
  RoleResult_Serialize,
  SavePresetRequest_Deserialize,
  Config_Serialize,
  EmbeddingTestRequest as WireEmbeddingTestRequest,
  EmbeddingTestResult_Serialize,
  Hardware_Serialize,
  LocalModel_Serialize,
  LocalModels_Serialize,
  LocalServer_Serialize,
  LocalPick_Serialize,
  LocalAddress_Deserialize,
  ModelBusy_Serialize,
  OkReply as WireOkReply,
  OnboardingDone,
  OnboardingRequest_Deserialize,
  ProviderView_Serialize,
  PullProgress_Deserialize,
  Roles_Serialize,
  SavedConfig_Serialize,
  SecretInfo_Serialize,
  StoreChanged_Serialize,
  StoreStatus_Serialize,
  StopResult_Serialize,
  StopState_Serialize,
  TestRequest_Deserialize,
  TestResult_Serialize,
  Session_Serialize,
  MessageRow_Serialize,
  SearchHit as WireSearchHit,
  FileInfo as WireFileInfo,
  PluginInfo as WirePluginInfo,
  RuleProposal_Serialize,
  RuleTarget_Serialize,
  RuleDecision as WireRuleDecision,
  Task_Serialize,
  Run_Serialize,
  ProgressUpdate_Serialize,
  ProgressMessage_Serialize,
  PendingQuestion_Serialize,
  Schedule_Serialize,
  ClarifyingQuestion_Serialize,
  Refinement_Serialize,
  NewTask_Deserialize,
  TaskPatch_Deserialize,
  ScheduleInput_Deserialize,
  Node_Serialize,
  Pairing_Serialize,
  LanStatus_Serialize,
  SandboxStatus_Serialize,
  SandboxResult_Serialize,
  TaskScript_Serialize,
  TerminalStatus_Serialize,
  Subagent_Serialize,
  KeyCheck_Serialize,
  ConnectStart,
  ConnectStatus_Serialize,
  CatalogModel_Serialize,
  StopAnswer as StopAnswer_Serialize,
  StopRequest as StopRequest_Deserialize,
  BrowserStatus_Serialize,
  NeedsYou_Serialize,
  PersonInput_Deserialize,
  ProfileList_Serialize,
  NewProfile_Deserialize,
  ProfileChange_Deserialize,
  ChatEvent_Serialize,
  DomainEvent_Serialize,
  Envelope_Serialize,
  Notification_Serialize,
  NotificationList_Serialize,
  Hook_Serialize,
  CreatedHook_Serialize,
  InvokeReply_Serialize,
  Memory_Serialize,
  WriteResult_Serialize,
  Graph,
  Summary_Serialize,
  ReviewInbox_Serialize,
  ReviewItem_Serialize,
  Workspace,
  ImportResult as WireImportResult,
  Value,
} from '../bindings';

export type { Health, Theme } from '../bindings';
export type { Value as JsonValue } from '../bindings';
export type Bootstrap = Bootstrap_Serialize;
export type Config = Config_Serialize;
export type OnboardingRequest = OnboardingRequest_Deserialize;
export type StopState = StopState_Serialize;
type StopResult = StopResult_Serialize;
type SavedConfig = SavedConfig_Serialize;
export type OkResponse = OnboardingDone;
export type StopAllResponse = StopResult;
export type PatchConfigResponse = SavedConfig;

// Models & secrets (contract section 3).
export type { Recommendation, Gpu_Serialize as Gpu, SecretStore, KeychainState } from '../bindings';
export type ProviderView = ProviderView_Serialize;
export type LocalModel = LocalModel_Serialize;
export type LocalModels = LocalModels_Serialize;
export type LocalServer = LocalServer_Serialize;
/** What onboarding's one click sets from the models already downloaded (beyond the contract). */
export type LocalPick = LocalPick_Serialize;
/** `PUT /api/models/local/address`: Ollama's or LM Studio's address; null puts back the usual one. */
export type LocalAddress = LocalAddress_Deserialize;
export type TestRequest = TestRequest_Deserialize;
export type TestResult = TestResult_Serialize;
export type EmbeddingTestRequest = WireEmbeddingTestRequest;
export type EmbeddingTestResult = EmbeddingTestResult_Serialize;
export type Roles = Roles_Serialize;
export type ModelBusy = ModelBusy_Serialize;
export type Hardware = Hardware_Serialize;
export type SecretInfo = SecretInfo_Serialize;
export type StoreStatus = StoreStatus_Serialize;
export type StoreChanged = StoreChanged_Serialize;
export type OkReply = WireOkReply;
/** One progress line of an Ollama download (`error` set on the last line when it failed). */
export type PullProgress = PullProgress_Deserialize;

// Model presets: named setups that switch every role in one step.
export type { MissingAction, MissingKind, CheckStatus, ModelRole } from '../bindings';
export type Preset = Preset_Serialize;
export type PresetList = PresetList_Serialize;
export type PresetSwitch = PresetSwitch_Serialize;
export type RoleChange = RoleChange_Serialize;
export type Missing = Missing_Serialize;
export type SavePresetRequest = SavePresetRequest_Deserialize;

// The check-up: each role's model tried the way Sentient uses it.
export type CheckupRequest = CheckupRequest_Deserialize;
/** One line of the check-up: `start`, `step`s, a `role` per role, then `done`. */
export type CheckupLine = CheckupLine_Serialize;
export type RoleResult = RoleResult_Serialize;
export type RolePick = RolePick_Serialize;
export type Check = Check_Serialize;
export type CheckAction = CheckAction_Serialize;

/** The seven model roles, in the order Settings shows them. */
export const ROLE_NAMES = ['primary', 'fast', 'planner', 'executor', 'embedding', 'vision', 'voice'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];
/** `PUT /api/models/roles`: only the roles named change; null = use the main model. */
export type RoleChanges = Partial<Record<RoleName, string | null>>;
/** `PUT /api/models/fallbacks`: each named role's backup models, in order. */
export type Fallbacks = Partial<Record<RoleName, string[]>>;

// Chats, files and tools (contract section 2).
export type Session = Session_Serialize;
export type MessageRow = MessageRow_Serialize;
export type SearchHit = WireSearchHit;
export type FileInfo = WireFileInfo;
export type PluginInfo = WirePluginInfo;

/** What a reply had in mind (memory; filled in by a later version, `[]` until then). */
export type { MemorySource } from '../bindings';

/** `chat.send`: omit `session_id` for a new chat; attachments are names from the files list. */
export type ChatSendRequest = {
  session_id?: string | null;
  text: string;
  attachments?: string[];
  model?: string | null;
  /** Echoed on the turn's `session` event (made up by the transport when left out). */
  client_id?: string;
};

export type ChatSteerRequest = { session_id: string; text: string; client_id?: string };

/** `chat.regenerate`: a new answer to the chat's last message, in place of the last answer. */
export type ChatRegenerateRequest = { session_id: string; model?: string | null; client_id?: string };

/** One version of a regenerated answer (on the answer's last row, and on its `done`). */
export type MessageVersion = MessageRow['versions'][number];

export type ApprovalDecision = 'allow' | 'allow_session' | 'deny';

/** The flat chat events of contract section 1, as a turn streams them. */
export type ChatEvent = ChatEvent_Serialize;

export type ChatEventListener = (ev: ChatEvent) => void;

/** Rules from chat: a "Make this a rule?" card (contract section 2). */
export type RuleTarget = RuleTarget_Serialize;
export type RuleProposal = RuleProposal_Serialize;
export type RuleProposalStatus = RuleProposal['status'] | 'all';
export type RuleDecision = WireRuleDecision;

// Tasks (contract section 4).
export type { TaskStatus, RunStatus, PlanStep, TaskChatLine, Frequency, CatchUp } from '../bindings';
/** Where a task's notifications go besides the app: "default", "desktop" or chosen chats. */
export type { DeliverTo } from '../bindings';
/** A progress line's message; `parameters` are the tool call's arguments as sent. */
export type ProgressMessage = Omit<ProgressMessage_Serialize, 'parameters'> & { parameters?: Record<string, unknown> };
export type ProgressUpdate = Omit<ProgressUpdate_Serialize, 'message'> & { message: ProgressMessage };
export type PendingQuestion = PendingQuestion_Serialize;
export type Schedule = Schedule_Serialize;
export type ClarifyingQuestion = ClarifyingQuestion_Serialize;
export type Run = Omit<Run_Serialize, 'progress_updates'> & { progress_updates: ProgressUpdate[] };
export type Task = Omit<Task_Serialize, 'runs'> & { runs: Run[] };
/** `POST /api/tasks/preview`: what the planner makes of a prompt. */
export type TaskPreview = Refinement_Serialize;
export type NewTaskRequest = NewTask_Deserialize;
/** A schedule as sent in a change: the time zone may be left out (the person's own is used). */
export type ScheduleInput = ScheduleInput_Deserialize;
/** `PATCH /api/tasks/{id}`: any of these fields. */
export type TaskPatch = TaskPatch_Deserialize;
export type ClarificationAnswer = { question_id: string; answer_text: string };

// Notifications (contract section 6).
/** What a task notification carries: which task, what happened, and how it was settled. */
export type TaskNotificationPayload = {
  task_id?: string;
  /** approval_needed, clarification_needed, planning_failed, question, run_failed, ... */
  event?: string;
  run_id?: string;
  question?: string;
  options?: string[];
  /** approved / declined / answered once settled; fixed for a planning_failed whose task got a plan. */
  status?: string;
  /** The task was deleted: the notification offers nothing for it any more. */
  task_deleted?: boolean;
  [key: string]: unknown;
};
/**
 * One entry in the notifications feed; `message` is markdown. The generated payload is a map of
 * strings; a task notification's `options` is a list, so the window reads it as the above.
 */
export type Notification = Omit<Notification_Serialize, 'payload'> & { payload: TaskNotificationPayload };
/** `GET /api/notifications`: newest first, and how many are unread in the whole feed. */
export type NotificationList = Omit<NotificationList_Serialize, 'notifications'> & { notifications: Notification[] };

// Webhooks (contract section 16).
/** One webhook: outside programs call `url` with the secret to start triggered tasks. */
export type Hook = Hook_Serialize;
/** `POST /api/hooks`: the hook, with its secret (shown this once; only its hash is kept). */
export type NewHook = CreatedHook_Serialize;

// Devices (contract section 13).
/** A phone, a pair of glasses, a watch, another computer, or the desktop app itself. */
export type Node = Node_Serialize;
/** `POST /api/nodes/pairing`: a single-use code for 10 minutes and how a device reaches Sentient. */
export type Pairing = Pairing_Serialize;
/** `GET /api/nodes/lan`: the LAN listener's state. */
export type LanStatus = LanStatus_Serialize;
/** `GET /api/sandbox/status`: whether scripts can run here, and with which Python. */
export type SandboxStatus = SandboxStatus_Serialize;
/** A script run (contract section 11): what it printed, returned and saved, or why it failed. */
export type SandboxResult = SandboxResult_Serialize;
/** A script job's script and what its checks found (`Task.script`, contract section 16). */
export type TaskScript = TaskScript_Serialize;
/** When a script job acts: changed, alert or every_run. */
export type { ScriptCondition, ScriptThen } from '../bindings';
/** `GET /api/terminal/status` (contract section 18): whether commands may run, where, and what runs now. */
export type TerminalStatus = TerminalStatus_Serialize;
/** `POST /api/terminal/stop`: a run's id or its tool call's id. */
export type StopRequest = StopRequest_Deserialize;
/** Whether a command was running under that id and is being stopped. */
export type StopAnswer = StopAnswer_Serialize;
/** A helper the assistant started from a chat (contract section 10), with its log. */
export type Subagent = Subagent_Serialize;
/** `POST /api/models/connect/{provider}/check`: `{ok, detail}` or `{ok: false, error}`. */
export type KeyCheck = KeyCheck_Serialize;
/** One model of a provider's list (`GET /api/models/catalog/{provider}`). */
export type CatalogModel = CatalogModel_Serialize;
/** `POST /api/models/connect/openrouter`: the sign-in page and the sign-in's id. */
export type { ConnectStart };
/** How far a plan sign-in got: waiting, exchanging, connected or failed. */
export type ConnectStatus = ConnectStatus_Serialize;
/** `GET /api/browser/status` (contract section 12): whether the assistant can use a browser and what is open. */
export type BrowserStatus = BrowserStatus_Serialize;
/** A browser page waiting for the person (a password, a code, a CAPTCHA): the status's `needs_you`. */
export type NeedsYou = NeedsYou_Serialize;
/** `POST /api/browser/input`: a tap, text or key from the live view of a page waiting for the person. */
export type PersonInput = PersonInput_Deserialize;
/** `GET /api/browser/profiles`: every browser profile and which one is open. */
export type BrowserProfiles = ProfileList_Serialize;
/** `POST /api/browser/profiles`. */
export type NewBrowserProfile = NewProfile_Deserialize;
/** `PATCH /api/browser/profiles/{name}`. */
export type BrowserProfileChange = ProfileChange_Deserialize;
/** `POST /api/nodes/{id}/invoke` (the generated type spells `params` loosely, as strings). */
export type InvokeRequest = { capability: string; params: Record<string, unknown>; timeout_ms?: number | null };
/**
 * What a device answered, or why it could not: `code` is offline, unsupported, timeout,
 * not_allowed, bad_upload or the device's own code; `error` a sentence or the device's
 * `{code, message}`. (The generated type spells `data` and `error` as strings; they are JSON.)
 */
export type InvokeReply = Omit<InvokeReply_Serialize, 'data' | 'error'> & {
  data?: { [key: string]: Value };
  error?: string | { code?: string; message?: string };
};

// Memory (contract section 7).
export type { TopicCount, PersonaPreset, MemoryType, FactStatus, GraphNode, GraphLink, Action as MemoryAction } from '../bindings';
/** One remembered (or held) fact; `similarity` and `score` are set in a search. */
export type Memory = Memory_Serialize;
/** What remembering decided: ADD, UPDATE, DELETE or SKIP, on which fact. */
export type WriteResult = WriteResult_Serialize;
export type MemoryGraph = Graph;
export type Summary = Summary_Serialize;
export type ReviewInbox = ReviewInbox_Serialize;
export type ReviewItem = ReviewItem_Serialize;
export type ReviewKind = ReviewItem['kind'];
export type MemoryWorkspace = Workspace;
/** `POST /api/memories/import`: what a file gave; every fact from a file waits in Review (`pending`). */
export type ImportResult = WireImportResult;
/** The notes files a person edits. */
export type NotesFileName = 'soul' | 'user' | 'memory';
/** `GET /api/memories`: any of these. */
export type MemoryQuery = { topic?: string; q?: string; source?: string; limit?: number; offset?: number };

// Live events.
/**
 * Payloads the window reads more narrowly than the generated type spells them (the same
 * narrowing as Task and Notification above).
 */
type NarrowData = {
  'task.updated': Task;
  'task.run_progress': Omit<Extract<DomainEvent_Serialize, { type: 'task.run_progress' }>['data'], 'update'> & {
    update: ProgressUpdate;
  };
  'notification.new': Notification;
  'notification.updated': Notification;
};
/** Each variant of `E` with its payload narrowed where NarrowData says so. */
type Narrowed<E> = E extends { type: infer K extends keyof NarrowData } ? Omit<E, 'data'> & { data: NarrowData[K] } : E;

/**
 * A domain event of the engine's bus: a dotted `type` (`stop.updated`, `task.updated`, ...) and
 * its payload in `data`. Generated from Rust, so a new variant there is a compile error in the
 * window's handler (`applyEvent` in queries.ts) until it is handled.
 */
export type DomainEvent = Narrowed<DomainEvent_Serialize>;
export type DomainEventType = DomainEvent['type'];
/** A domain event as the bus sends it: `{type, data, ts}`. */
export type DomainEnvelope = Narrowed<Envelope_Serialize>;
/** A chat event as the live socket hands it to subscribers: `data` is the whole flat message. */
export type ChatEnvelope = {
  [K in ChatEvent['type']]: { type: K; data: Extract<ChatEvent, { type: K }>; ts: string };
}[ChatEvent['type']];
/** The socket's greeting on every (re)connect. */
export type HelloMessage = { type: 'hello'; version: string; assistant: string };
/**
 * What the window says itself about the live connection: `hello` (connected, `data` is the hello
 * message) and `connection.lost`.
 */
export type ConnectionEvent =
  | { type: 'hello'; data: HelloMessage; ts: string }
  | { type: 'connection.lost'; data: null; ts: string };

/**
 * One live event, `{type, data, ts}`: a domain event from the bus (both transports), a chat event
 * (the HTTP transport only: chat events arrive flat on its socket and are wrapped so `data` is the
 * whole message; in the desktop app they come on the turn's own channel), or one of the
 * connection's own events.
 */
export type EngineEvent = DomainEnvelope | ChatEnvelope | ConnectionEvent;

export type EventListener = (ev: EngineEvent) => void;

/** Where a stop or resume came from (the contract's StopState.source). */
export type StopSource = 'desktop' | 'tray' | 'hotkey' | 'telegram' | 'discord' | 'device' | string;
