// Server state: every view reads the engine through these hooks, and `applyEvent` is the one
// place where live bus events update the cache, so every view stays current without reloading.
import {
  QueryClient,
  useMutation,
  useMutationState,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import type {
  ConfigSchema,
  ConnectAnswer,
  FeedStatus,
  FeedSyncReply,
  FilterLists,
  Integration,
  IntegrationAccess,
  IntegrationTest,
  McpServerInfo,
  McpTestResult,
  NewMcpServer,
} from './calls';
import { useApi } from './context';
import { ApiError, toApiError, UNREACHABLE } from './errors';
import { assertNever, isDomainEvent } from './events';
import type {
  Bootstrap,
  CheckStatus,
  CheckupLine,
  CheckupRequest,
  DomainEvent,
  EmbeddingTestResult,
  EngineEvent,
  FileInfo,
  Hardware,
  LocalModels,
  ModelBusy,
  OkReply,
  OnboardingRequest,
  Preset,
  PresetList,
  PresetSwitch,
  ProviderView,
  PullProgress,
  RoleChanges,
  MessageRow,
  RolePick,
  RoleResult,
  Roles,
  RuleDecision,
  RuleProposal,
  SandboxStatus,
  SearchHit,
  Session,
  SavePresetRequest,
  SecretInfo,
  StopState,
  TestResult,
  Task,
  TaskPatch,
  TaskPreview,
  ProgressUpdate,
  ClarificationAnswer,
  Hook,
  NewHook,
  Notification,
  NotificationList,
  InvokeReply,
  InvokeRequest,
  LanStatus,
  Node,
  Pairing,
} from './types';

export const queryKeys = {
  bootstrap: ['bootstrap'] as const,
  /** Mutation key shared by Stop everything and Resume, so their last error can be shown once. */
  stopControl: ['stop-control'] as const,
  stop: ['stop'] as const,
  config: ['config'] as const,
  configSchema: ['config-schema'] as const,
  providers: ['models', 'providers'] as const,
  localModels: ['models', 'local'] as const,
  roles: ['models', 'roles'] as const,
  modelBusy: ['models', 'busy'] as const,
  hardware: ['system', 'hardware'] as const,
  secrets: ['secrets'] as const,
  presets: ['models', 'presets'] as const,
  sessions: ['sessions', 'list'] as const,
  sessionSearch: (q: string) => ['sessions', 'search', q] as const,
  // Kept apart from ['sessions', ...] so refreshing the list never refetches an open transcript.
  messages: (sessionId: string) => ['chat-messages', sessionId] as const,
  ruleProposals: (sessionId: string) => ['rule-proposals', sessionId] as const,
  tasks: ['tasks', 'list'] as const,
  task: (taskId: string) => ['tasks', 'detail', taskId] as const,
  runEvents: (taskId: string, runId: string) => ['task-run-events', taskId, runId] as const,
  notifications: ['notifications', 'list'] as const,
  hooks: ['hooks', 'list'] as const,
  nodes: ['nodes', 'list'] as const,
  lan: ['nodes', 'lan'] as const,
  /** Every memory query sits under this key, so one `memory.updated` refreshes them all. */
  memory: ['memory'] as const,
  /** Every app, tool servers included as `mcp_<name>`. */
  integrations: ['integrations', 'list'] as const,
  feeds: ['integrations', 'feeds'] as const,
  mcpServers: ['integrations', 'mcp'] as const,
  privacyFilters: (id: string) => ['integrations', 'privacy-filters', id] as const,
  sandboxStatus: ['sandbox', 'status'] as const,
};

/** How many notifications the feed shows (the engine keeps more; the unread count covers all). */
export const FEED_LIMIT = 200;

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // Only retry when the engine didn't answer; a plain "no" from the engine won't change.
        retry: (count, error) => toApiError(error).status === UNREACHABLE && count < 2,
      },
      mutations: { retry: false },
    },
  });
}

function asStopState(value: unknown): StopState | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Partial<StopState>;
  if (typeof v.stopped !== 'boolean') return null;
  return { stopped: v.stopped, stopped_at: v.stopped_at ?? null, source: v.source ?? null };
}

/** Puts a new stop state everywhere it is shown (the stop query and bootstrap's copy). */
export function setStopState(qc: QueryClient, value: unknown): void {
  const stop = asStopState(value);
  if (!stop) return;
  qc.setQueryData<StopState>(queryKeys.stop, stop);
  qc.setQueryData<Bootstrap>(queryKeys.bootstrap, (b) => (b ? { ...b, stop } : b));
}

/** A chat got a (new) title: rename it in the list, or fetch the list when it is new. */
function applySessionUpdated(qc: QueryClient, data: unknown): void {
  const d = data as { session_id?: unknown; title?: unknown } | null;
  if (!d || typeof d.session_id !== 'string' || typeof d.title !== 'string') return;
  const { session_id, title } = d;
  const list = qc.getQueryData<Session[]>(queryKeys.sessions);
  if (list && list.some((s) => s.id === session_id)) {
    qc.setQueryData<Session[]>(queryKeys.sessions, list.map((s) => (s.id === session_id ? { ...s, title } : s)));
    // A list fetch already on its way (a reply's `done` asks for one) may predate this rename
    // and would put the old title back when it lands: fetch again instead.
    if (qc.isFetching({ queryKey: queryKeys.sessions }) > 0) void qc.invalidateQueries({ queryKey: queryKeys.sessions });
  } else {
    void qc.invalidateQueries({ queryKey: queryKeys.sessions });
  }
}

/** A rule proposal was made or answered: put it in its chat's list (answered ones show their outcome). */
function applyRuleProposal(qc: QueryClient, data: unknown): void {
  const p = data as RuleProposal | null;
  if (!p || typeof p.id !== 'string' || typeof p.session_id !== 'string') return;
  qc.setQueryData<RuleProposal[]>(queryKeys.ruleProposals(p.session_id), (list) => upsertProposal(list ?? [], p));
}

export function upsertProposal(list: RuleProposal[], p: RuleProposal): RuleProposal[] {
  return list.some((x) => x.id === p.id) ? list.map((x) => (x.id === p.id ? p : x)) : [...list, p];
}

// ------------------------------------------------------------------------------ tasks (cache)

/** How many progress lines a run keeps in the cache (what the engine embeds). */
const RUN_LOG_KEEP = 200;

function isTask(value: unknown): value is Task {
  const t = value as Partial<Task> | null;
  return !!t && typeof t.task_id === 'string' && typeof t.status === 'string' && Array.isArray(t.runs);
}

const when = (iso: string | null | undefined): number => (iso ? Date.parse(iso) : Number.NaN);

/**
 * What to keep when a copy of a task arrives: the socket and a call's answer travel separately,
 * so an answer read before the latest event can arrive after it. An older copy (by
 * `updated_at`) is ignored, and progress lines the cache already has past the copy's last one
 * are kept (they came live, after the copy was read).
 */
export function mergeTask(incoming: Task, cached: Task | undefined): Task {
  if (!cached || cached.task_id !== incoming.task_id) return incoming;
  if (when(incoming.updated_at) < when(cached.updated_at)) return cached;
  return {
    ...incoming,
    runs: incoming.runs.map((run) => {
      const had = cached.runs.find((r) => r.run_id === run.run_id);
      if (!had) return run;
      const last = when(run.progress_updates.at(-1)?.timestamp);
      const later = had.progress_updates.filter(
        (u) => (Number.isNaN(last) || when(u.timestamp) >= last) && !run.progress_updates.some((v) => sameUpdate(u, v)),
      );
      return later.length > 0 ? { ...run, progress_updates: [...run.progress_updates, ...later].slice(-RUN_LOG_KEEP) } : run;
    }),
  };
}

/** A task as it is now: replaces it in the list (or adds it, newest first) and in its detail. */
export function putTask(qc: QueryClient, task: unknown): void {
  if (!isTask(task)) return;
  qc.setQueryData<Task[]>(queryKeys.tasks, (list) => {
    if (!list) return list;
    return list.some((t) => t.task_id === task.task_id)
      ? list.map((t) => (t.task_id === task.task_id ? mergeTask(task, t) : t))
      : [task, ...list];
  });
  qc.setQueryData<Task>(queryKeys.task(task.task_id), (cached) => mergeTask(task, cached));
}

/** A task is gone: out of the list, and its detail forgotten. */
export function dropTask(qc: QueryClient, taskId: string): void {
  qc.setQueryData<Task[]>(queryKeys.tasks, (list) => list?.filter((t) => t.task_id !== taskId));
  qc.removeQueries({ queryKey: queryKeys.task(taskId) });
}

/** The same line, whichever way it came (the store keeps times to fewer digits than the bus sends). */
function sameUpdate(a: ProgressUpdate, b: ProgressUpdate): boolean {
  return (
    (a.timestamp === b.timestamp || Date.parse(a.timestamp) === Date.parse(b.timestamp)) &&
    a.message.type === b.message.type &&
    a.message.content === b.message.content
  );
}

/** Adds a progress line to a run (once, even if a `task.updated` already brought it). */
export function withProgress(task: Task, runId: string, update: ProgressUpdate): Task {
  if (!task.runs.some((r) => r.run_id === runId)) return task;
  return {
    ...task,
    runs: task.runs.map((r) => {
      if (r.run_id !== runId || r.progress_updates.some((u) => sameUpdate(u, update))) return r;
      return {
        ...r,
        progress_updates: [...r.progress_updates, update].slice(-RUN_LOG_KEEP),
        last_activity_at: update.timestamp,
      };
    }),
  };
}

function applyRunProgress(qc: QueryClient, data: unknown): void {
  const d = data as { task_id?: unknown; run_id?: unknown; update?: ProgressUpdate } | null;
  if (!d || typeof d.task_id !== 'string' || typeof d.run_id !== 'string' || !d.update?.message) return;
  const { task_id, run_id, update } = d;
  const list = qc.getQueryData<Task[]>(queryKeys.tasks);
  const known = list?.some((t) => t.task_id === task_id && t.runs.some((r) => r.run_id === run_id));
  qc.setQueryData<Task[]>(queryKeys.tasks, (l) => l?.map((t) => (t.task_id === task_id ? withProgress(t, run_id, update) : t)));
  qc.setQueryData<Task>(queryKeys.task(task_id), (t) => (t ? withProgress(t, run_id, update) : t));
  qc.setQueryData<ProgressUpdate[]>(queryKeys.runEvents(task_id, run_id), (log) =>
    log && !log.some((u) => sameUpdate(u, update)) ? [...log, update] : log,
  );
  // A run the window hasn't heard of yet (its task.updated may still be on its way).
  if (list && !known) {
    void qc.invalidateQueries({ queryKey: queryKeys.tasks });
    void qc.invalidateQueries({ queryKey: queryKeys.task(task_id) });
  }
}

/**
 * Applies one live event to the cache. Chat events and the connection's own events are not the
 * cache's business (the chat page and `useLiveEvents` read them). Returns whether the event was a
 * domain event the window knows (handled, or ignored on purpose).
 */
export function applyEvent(qc: QueryClient, ev: EngineEvent): boolean {
  if (!isDomainEvent(ev)) return false;
  return applyDomainEvent(qc, ev);
}

/** The window's handler for every domain event: one case per generated DomainEvent variant. */
function applyDomainEvent(qc: QueryClient, ev: DomainEvent): boolean {
  switch (ev.type) {
    case 'session.updated':
      applySessionUpdated(qc, ev.data);
      return true;
    case 'rule_proposal.updated':
      applyRuleProposal(qc, ev.data);
      return true;
    case 'stop.updated':
      setStopState(qc, ev.data);
      return true;
    case 'task.updated':
      putTask(qc, ev.data);
      return true;
    case 'task.deleted': {
      const id = (ev.data as { task_id?: unknown } | null)?.task_id;
      if (typeof id === 'string') dropTask(qc, id);
      return true;
    }
    case 'task.run_progress':
      applyRunProgress(qc, ev.data);
      return true;
    case 'task.run_activity':
      // Not shown live: a run's activity time comes with its progress lines and task.updated.
      return true;
    case 'task.run_context':
      // The run's context meter isn't shown in the window yet.
      return true;
    case 'task.run_finished':
      // For services that follow runs; the window reads the run's end from task.updated.
      return true;
    case 'config.updated': {
      void qc.invalidateQueries({ queryKey: queryKeys.config });
      void qc.invalidateQueries({ queryKey: queryKeys.bootstrap });
      const sections = (ev.data as { sections?: unknown } | null)?.sections;
      const changed = (name: string) => !Array.isArray(sections) || sections.includes(name);
      if (changed('models')) {
        void qc.invalidateQueries({ queryKey: queryKeys.roles });
        // A provider's address is a models setting too.
        void qc.invalidateQueries({ queryKey: queryKeys.providers });
        void qc.invalidateQueries({ queryKey: queryKeys.presets });
      }
      if (changed('nodes')) void qc.invalidateQueries({ queryKey: queryKeys.lan });
      if (changed('secrets')) {
        void qc.invalidateQueries({ queryKey: queryKeys.secrets });
        void qc.invalidateQueries({ queryKey: queryKeys.providers });
        // Cloud and Mixed are available once a cloud key is set.
        void qc.invalidateQueries({ queryKey: queryKeys.presets });
      }
      return true;
    }
    case 'model.busy': {
      const busy = ev.data as Partial<ModelBusy> | null;
      if (busy && typeof busy.busy === 'boolean') qc.setQueryData<ModelBusy>(queryKeys.modelBusy, busy as ModelBusy);
      return true;
    }
    case 'source.items':
      // For triggered tasks and proactivity in the engine; what they do arrives as task events.
      return true;
    case 'integration.updated':
      // The webhook integration's triggers are the hooks.
      void qc.invalidateQueries({ queryKey: queryKeys.hooks });
      applyIntegrationUpdated(qc, ev.data);
      return true;
    case 'notification.new':
    case 'notification.updated':
      putNotification(qc, ev.data);
      return true;
    case 'notification.read':
      markNotificationsRead(qc, idOf(ev.data));
      return true;
    case 'notification.deleted':
      dropNotifications(qc, idOf(ev.data));
      return true;
    case 'node.updated':
      putNode(qc, ev.data);
      return true;
    case 'node.deleted': {
      const id = (ev.data as { node_id?: unknown } | null)?.node_id;
      if (typeof id === 'string') dropNode(qc, id);
      return true;
    }
    case 'node.event':
      // A device's button press or wake word is for the engine to act on; nothing to show.
      return true;
    case 'memory.updated':
      // Facts, topics, the map and the review inbox all follow from one change.
      void qc.invalidateQueries({ queryKey: queryKeys.memory });
      return true;
    default:
      // A variant added in Rust is a compile error here until it has a case above.
      return assertNever(ev);
  }
}

// ------------------------------------------------------------------------------ apps (cache)

function isIntegration(value: unknown): value is Integration {
  const i = value as Partial<Integration> | null;
  return !!i && typeof i.id === 'string' && typeof i.status === 'string' && typeof i.display_name === 'string';
}

/**
 * Before a change whose answer is written into a cached list (or the settings): a read still on
 * its way was asked for before the change and would land after the answer, putting the old value
 * back (or a removed server). Every such change drops it first; the change's own event
 * (`integration.updated`, `config.updated`) reads it again.
 */
function dropStaleReads(qc: QueryClient, queryKey: readonly unknown[]): Promise<void> {
  // A first load is left alone: cancelling it would leave the page without data until the next event.
  return qc.cancelQueries({ queryKey, predicate: (query) => query.state.data !== undefined });
}

/** An app as it is now: replaced in the list (a new one, such as a new tool server, refetches it). */
export function putIntegration(qc: QueryClient, app: unknown): void {
  if (!isIntegration(app)) return;
  const list = qc.getQueryData<Integration[]>(queryKeys.integrations);
  if (list && list.some((i) => i.id === app.id)) {
    qc.setQueryData<Integration[]>(queryKeys.integrations, list.map((i) => (i.id === app.id ? app : i)));
  } else {
    void qc.invalidateQueries({ queryKey: queryKeys.integrations });
  }
}

/** `integration.updated`: the app in the list, and what follows from it (its feed, its server). */
function applyIntegrationUpdated(qc: QueryClient, data: unknown): void {
  putIntegration(qc, data);
  if (!isIntegration(data)) return;
  void qc.invalidateQueries({ queryKey: queryKeys.feeds });
  if (data.id.startsWith('mcp_')) void qc.invalidateQueries({ queryKey: queryKeys.mcpServers });
}

function isMcpServer(value: unknown): value is McpServerInfo {
  const s = value as Partial<McpServerInfo> | null;
  return !!s && typeof s.name === 'string' && typeof s.status === 'string' && Array.isArray(s.tools);
}

/** A tool server as it is now: replaced in the list, or added at its end. */
export function putMcpServer(qc: QueryClient, server: unknown): void {
  if (!isMcpServer(server)) return;
  qc.setQueryData<McpServerInfo[]>(queryKeys.mcpServers, (list) => {
    if (!list) return list;
    return list.some((s) => s.name === server.name)
      ? list.map((s) => (s.name === server.name ? server : s))
      : [...list, server];
  });
}

export function dropMcpServer(qc: QueryClient, name: string): void {
  qc.setQueryData<McpServerInfo[]>(queryKeys.mcpServers, (list) => list?.filter((s) => s.name !== name));
}

// ------------------------------------------------------------------------------ notifications (cache)

function isNotification(value: unknown): value is Notification {
  const n = value as Partial<Notification> | null;
  return !!n && typeof n.id === 'string' && typeof n.title === 'string' && typeof n.read === 'boolean';
}

/** `{id}` of a read or deleted event: a string, or null for "all". Undefined when unreadable. */
function idOf(data: unknown): string | null | undefined {
  const id = (data as { id?: unknown } | null)?.id;
  if (id === null) return null;
  return typeof id === 'string' ? id : undefined;
}

/** Changes the feed in the cache and keeps bootstrap's unread count in step with it. */
function changeFeed(qc: QueryClient, change: (feed: NotificationList) => NotificationList): boolean {
  const feed = qc.getQueryData<NotificationList>(queryKeys.notifications);
  if (!feed) {
    // Nobody has read the feed yet: only the count (in bootstrap) is shown.
    void qc.invalidateQueries({ queryKey: queryKeys.bootstrap });
    return false;
  }
  const next = change(feed);
  qc.setQueryData<NotificationList>(queryKeys.notifications, next);
  qc.setQueryData<Bootstrap>(queryKeys.bootstrap, (b) => (b ? { ...b, unread_notifications: next.unread } : b));
  return true;
}

/** A new or changed notification: put in the feed (newest first), the count kept right. */
export function putNotification(qc: QueryClient, data: unknown): void {
  if (!isNotification(data)) return;
  changeFeed(qc, (feed) => {
    const had = feed.notifications.find((n) => n.id === data.id);
    const wasUnread = had ? !had.read : false;
    const unread = Math.max(0, feed.unread - (wasUnread ? 1 : 0) + (data.read ? 0 : 1));
    const notifications = had
      ? feed.notifications.map((n) => (n.id === data.id ? data : n))
      : [data, ...feed.notifications].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
    return { notifications, unread };
  });
}

/** One notification (or all, for null) marked read. */
export function markNotificationsRead(qc: QueryClient, id: string | null | undefined): void {
  if (id === undefined) return;
  changeFeed(qc, (feed) => {
    if (id === null) return { notifications: feed.notifications.map((n) => (n.read ? n : { ...n, read: true })), unread: 0 };
    const had = feed.notifications.find((n) => n.id === id);
    if (!had || had.read) return feed;
    return {
      notifications: feed.notifications.map((n) => (n.id === id ? { ...n, read: true } : n)),
      unread: Math.max(0, feed.unread - 1),
    };
  });
}

/** One notification (or all, for null) deleted. */
export function dropNotifications(qc: QueryClient, id: string | null | undefined): void {
  if (id === undefined) return;
  changeFeed(qc, (feed) => {
    if (id === null) return { notifications: [], unread: 0 };
    const had = feed.notifications.find((n) => n.id === id);
    if (!had) return feed;
    return {
      notifications: feed.notifications.filter((n) => n.id !== id),
      unread: Math.max(0, feed.unread - (had.read ? 0 : 1)),
    };
  });
}

// ------------------------------------------------------------------------------ devices (cache)

function isNode(value: unknown): value is Node {
  const n = value as Partial<Node> | null;
  return !!n && typeof n.node_id === 'string' && typeof n.name === 'string' && typeof n.online === 'boolean';
}

/** Online devices first; otherwise the order they came in (the engine's). */
export function sortNodes(list: Node[]): Node[] {
  return [...list].sort((a, b) => Number(b.online) - Number(a.online));
}

/** A device as it is now: replaced in the list (a new one goes first), online ones kept first. */
export function putNode(qc: QueryClient, node: unknown): void {
  if (!isNode(node)) return;
  qc.setQueryData<Node[]>(queryKeys.nodes, (list) => {
    if (!list) return list;
    const next = list.some((n) => n.node_id === node.node_id)
      ? list.map((n) => (n.node_id === node.node_id ? node : n))
      : [node, ...list];
    return sortNodes(next);
  });
}

/** A device was removed. */
export function dropNode(qc: QueryClient, nodeId: string): void {
  qc.setQueryData<Node[]>(queryKeys.nodes, (list) => list?.filter((n) => n.node_id !== nodeId));
}

/**
 * Listens to the engine for as long as the app is open. Returns whether the live connection was
 * lost (and not yet back); after it comes back, everything is fetched again in case events
 * were missed meanwhile.
 */
export function useLiveEvents(): { lost: boolean } {
  const api = useApi();
  const qc = useQueryClient();
  const [lost, setLost] = useState(false);
  const lostRef = useRef(false);

  useEffect(() => {
    return api.subscribe((ev) => {
      if (ev.type === 'connection.lost') {
        lostRef.current = true;
        setLost(true);
        return;
      }
      if (ev.type === 'hello') {
        if (lostRef.current) {
          lostRef.current = false;
          setLost(false);
          void qc.invalidateQueries();
        }
        return;
      }
      applyEvent(qc, ev);
    });
  }, [api, qc]);

  return { lost };
}

export function useBootstrap() {
  const api = useApi();
  const qc = useQueryClient();
  return useQuery<Bootstrap, ApiError>({
    queryKey: queryKeys.bootstrap,
    queryFn: async () => {
      const asked = Date.now();
      const b = await api.bootstrap().catch((e: unknown) => Promise.reject(toApiError(e)));
      // Seed the stop state, unless a newer one (an event, a click) arrived meanwhile.
      const current = qc.getQueryState(queryKeys.stop);
      if (!current?.data || current.dataUpdatedAt <= asked) qc.setQueryData(queryKeys.stop, b.stop);
      return b;
    },
  });
}

export function useStopState() {
  const api = useApi();
  return useQuery<StopState, ApiError>({
    queryKey: queryKeys.stop,
    queryFn: () => api.getStop().catch((e: unknown) => Promise.reject(toApiError(e))),
  });
}

export function useStopAll() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<StopState, ApiError, void>({
    mutationKey: queryKeys.stopControl,
    mutationFn: () => api.stopAll('desktop').catch((e: unknown) => Promise.reject(toApiError(e))),
    onSuccess: (state) => setStopState(qc, state),
  });
}

export function useResume() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<StopState, ApiError, void>({
    mutationKey: queryKeys.stopControl,
    mutationFn: () => api.resume('desktop').catch((e: unknown) => Promise.reject(toApiError(e))),
    onSuccess: (state) => setStopState(qc, state),
  });
}

/** The error of the latest Stop everything / Resume click, if that click failed. */
export function useStopControlError(): ApiError | null {
  const states = useMutationState({
    filters: { mutationKey: queryKeys.stopControl },
    select: (m) => ({ status: m.state.status, error: m.state.error, at: m.state.submittedAt }),
  });
  const latest = states.reduce<(typeof states)[number] | null>((a, b) => (!a || b.at >= a.at ? b : a), null);
  return latest?.status === 'error' ? toApiError(latest.error) : null;
}

export function useOnboarding() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<unknown, ApiError, OnboardingRequest>({
    mutationFn: (body) => api.onboarding(body).catch((e: unknown) => Promise.reject(toApiError(e))),
    onSuccess: async (_res, body) => {
      // Show the app at once, then fetch what the engine made of it.
      qc.setQueryData<Bootstrap>(queryKeys.bootstrap, (b) =>
        b
          ? {
              ...b,
              assistant: {
                ...b.assistant,
                name: body.assistant_name || b.assistant.name,
                user_name: body.user_name,
                timezone: body.timezone ?? b.assistant.timezone,
                location: body.location ?? b.assistant.location,
                onboarding_complete: true,
              },
            }
          : b,
      );
      await qc.invalidateQueries({ queryKey: queryKeys.bootstrap });
    },
  });
}

export function useConfig() {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.config,
    queryFn: () => api.getConfig().catch((e: unknown) => Promise.reject(toApiError(e))),
  });
}

/** The settings' JSON schema; it only changes with a new version, so it is read once. */
export function useConfigSchema() {
  const api = useApi();
  return useQuery<ConfigSchema, ApiError>({
    queryKey: queryKeys.configSchema,
    queryFn: () => api.configSchema().catch((e: unknown) => Promise.reject(toApiError(e))),
    staleTime: Infinity,
  });
}

/** Whether scripts can run here; read again when the settings change (on/off, the backend). */
export function useSandboxStatus() {
  const api = useApi();
  return useQuery<SandboxStatus, ApiError>({
    queryKey: queryKeys.sandboxStatus,
    queryFn: () => api.sandboxStatus().catch((e: unknown) => Promise.reject(toApiError(e))),
  });
}

export function usePatchConfig() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<unknown, ApiError, Record<string, unknown>>({
    onMutate: () => dropStaleReads(qc, queryKeys.config),
    mutationFn: (partial) => api.patchConfig(partial).catch((e: unknown) => Promise.reject(toApiError(e))),
    onSuccess: async (res) => {
      const config = (res as { config?: unknown } | undefined)?.config;
      if (config) qc.setQueryData(queryKeys.config, config);
      await qc.invalidateQueries({ queryKey: queryKeys.bootstrap });
      await qc.invalidateQueries({ queryKey: queryKeys.sandboxStatus });
    },
  });
}

// ------------------------------------------------------------------------- models & secrets

const rejectAsApiError = (e: unknown) => Promise.reject(toApiError(e));

export function useModelProviders() {
  const api = useApi();
  return useQuery<ProviderView[], ApiError>({
    queryKey: queryKeys.providers,
    queryFn: () => api.modelProviders().catch(rejectAsApiError),
  });
}

export function useLocalModels() {
  const api = useApi();
  return useQuery<LocalModels, ApiError>({
    queryKey: queryKeys.localModels,
    queryFn: () => api.localModels().catch(rejectAsApiError),
    // Ollama can be started or stopped outside Sentient; look again now and then.
    refetchInterval: 30_000,
  });
}

export function useRoles() {
  const api = useApi();
  return useQuery<Roles, ApiError>({
    queryKey: queryKeys.roles,
    queryFn: () => api.getRoles().catch(rejectAsApiError),
  });
}

export function useSetRoles() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Roles, ApiError, RoleChanges>({
    mutationFn: (changes) => api.setRoles(changes).catch(rejectAsApiError),
    onSuccess: async (roles) => {
      qc.setQueryData(queryKeys.roles, roles);
      await Promise.all([
        qc.invalidateQueries({ queryKey: queryKeys.config }),
        qc.invalidateQueries({ queryKey: queryKeys.bootstrap }),
        // A role changed by hand marks the active preset as modified.
        qc.invalidateQueries({ queryKey: queryKeys.presets }),
      ]);
    },
  });
}

/** Tries a model: a chat model with one tool call, an embedding model with one embedding. */
export type ModelTest = { kind: 'chat'; result: TestResult } | { kind: 'embedding'; result: EmbeddingTestResult };

export function useTestModel() {
  const api = useApi();
  return useMutation<ModelTest, ApiError, { model: string; role: string }>({
    mutationFn: async ({ model, role }) => {
      try {
        if (role === 'embedding') return { kind: 'embedding', result: await api.testEmbedding({ model }) };
        return { kind: 'chat', result: await api.testModel({ model, role }) };
      } catch (e) {
        throw toApiError(e);
      }
    },
  });
}

export function useModelBusy() {
  const api = useApi();
  return useQuery<ModelBusy, ApiError>({
    queryKey: queryKeys.modelBusy,
    queryFn: () => api.modelBusy().catch(rejectAsApiError),
    // Kept current by the model.busy event.
    staleTime: Infinity,
  });
}

export function useHardware() {
  const api = useApi();
  return useQuery<Hardware, ApiError>({
    queryKey: queryKeys.hardware,
    queryFn: () => api.hardware(false).catch(rejectAsApiError),
    staleTime: Infinity,
  });
}

export function useSecrets() {
  const api = useApi();
  return useQuery<SecretInfo[], ApiError>({
    queryKey: queryKeys.secrets,
    queryFn: () => api.listSecrets().catch(rejectAsApiError),
  });
}

async function refreshKeys(qc: QueryClient) {
  await Promise.all([
    qc.invalidateQueries({ queryKey: queryKeys.secrets }),
    qc.invalidateQueries({ queryKey: queryKeys.providers }),
    qc.invalidateQueries({ queryKey: queryKeys.presets }),
  ]);
}

export function useSetSecret() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, { name: string; value: string }>({
    mutationFn: ({ name, value }) => api.setSecret(name, value).catch(rejectAsApiError),
    onSuccess: () => refreshKeys(qc),
  });
}

export function useDeleteSecret() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    mutationFn: (name) => api.deleteSecret(name).catch(rejectAsApiError),
    onSuccess: () => refreshKeys(qc),
  });
}

/** Where an Ollama download is: the latest progress line, and how it ended. */
export type PullState =
  | { phase: 'idle' }
  | { phase: 'pulling'; name: string; status: string; percent: number | null }
  | { phase: 'done'; name: string }
  | { phase: 'failed'; name: string; error: string };

/** The percent done of a progress line (null while Ollama hasn't said how big it is). */
export function pullPercent(line: Pick<PullProgress, 'completed' | 'total'>): number | null {
  const { completed, total } = line;
  if (typeof completed !== 'number' || typeof total !== 'number' || total <= 0) return null;
  return Math.max(0, Math.min(100, Math.floor((completed / total) * 100)));
}

/**
 * Downloads one model into Ollama at a time, following its progress. When it ends, the list of
 * installed models is fetched again.
 */
export function usePullModel() {
  const api = useApi();
  const qc = useQueryClient();
  const [state, setState] = useState<PullState>({ phase: 'idle' });
  const running = useRef(false);

  const start = useCallback(
    async (raw: string) => {
      const name = raw.trim();
      if (!name || running.current) return;
      running.current = true;
      setState({ phase: 'pulling', name, status: 'Starting the download…', percent: null });
      let error: string | null = null;
      try {
        await api.pullModel(name, (line) => {
          if (line.error || line.status === 'error') {
            error = line.error || 'Ollama could not download it.';
            return;
          }
          setState((prev) => {
            const percent = pullPercent(line);
            const kept = prev.phase === 'pulling' && percent === null && line.status === prev.status ? prev.percent : percent;
            return { phase: 'pulling', name, status: line.status || (prev.phase === 'pulling' ? prev.status : ''), percent: kept };
          });
        });
      } catch (e) {
        error = toApiError(e).detail;
      } finally {
        running.current = false;
      }
      setState(error ? { phase: 'failed', name, error } : { phase: 'done', name });
      await qc.invalidateQueries({ queryKey: queryKeys.localModels });
    },
    [api, qc],
  );

  return { state, start, busy: state.phase === 'pulling' };
}

// ------------------------------------------------------------------------------ presets

export function useModelPresets() {
  const api = useApi();
  return useQuery<PresetList, ApiError>({
    queryKey: queryKeys.presets,
    queryFn: () => api.modelPresets().catch(rejectAsApiError),
  });
}

/** After a switch every role may have changed: fetch what depends on them again. */
async function refreshAfterSwitch(qc: QueryClient) {
  await Promise.all([
    qc.invalidateQueries({ queryKey: queryKeys.presets }),
    qc.invalidateQueries({ queryKey: queryKeys.roles }),
    qc.invalidateQueries({ queryKey: queryKeys.config }),
    qc.invalidateQueries({ queryKey: queryKeys.bootstrap }),
  ]);
}

/** Applies a preset by name, or undoes the last switch (`undo: true`); answers what changed. */
export function useSwitchPreset() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<PresetSwitch, ApiError, { name: string } | { undo: true }>({
    mutationFn: (what) =>
      ('undo' in what ? api.undoModelPreset() : api.applyModelPreset(what.name)).catch(rejectAsApiError),
    onSuccess: () => refreshAfterSwitch(qc),
  });
}

export function useSavePreset() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Preset, ApiError, SavePresetRequest>({
    mutationFn: (body) => api.saveModelPreset(body).catch(rejectAsApiError),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.presets }),
  });
}

export function useDeletePreset() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    mutationFn: (name) => api.deleteModelPreset(name).catch(rejectAsApiError),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.presets }),
  });
}

// ------------------------------------------------------------------------------ check-up

/** Where the check-up is: the roles it checks, each role's current step, and finished roles. */
export type CheckupState = {
  phase: 'idle' | 'running' | 'done' | 'failed';
  /** The roles being checked, in order (from the start line). */
  picks: RolePick[];
  /** What each role is doing now, e.g. "Trying a tool call". */
  steps: Partial<Record<string, string>>;
  /** Finished roles by name. */
  results: Partial<Record<string, RoleResult>>;
  /** The overall status once done (the worst role). */
  status: CheckStatus | null;
  error: string | null;
};

const CHECKUP_IDLE: CheckupState = { phase: 'idle', picks: [], steps: {}, results: {}, status: null, error: null };

/** Folds one check-up line into the state. */
export function checkupReducer(state: CheckupState, line: CheckupLine): CheckupState {
  switch (line.type) {
    case 'start':
      return { ...state, picks: line.roles };
    case 'step':
      return { ...state, steps: { ...state.steps, [line.role]: line.label } };
    case 'role': {
      const { type: _type, ...result } = line;
      const steps = { ...state.steps };
      delete steps[result.role];
      return { ...state, steps, results: { ...state.results, [result.role]: result } };
    }
    case 'done': {
      const results = { ...state.results };
      for (const r of line.roles) results[r.role] = r;
      return { ...state, phase: 'done', steps: {}, results, status: line.status };
    }
    default:
      return state;
  }
}

/** Runs the model check-up and follows it line by line. */
export function useCheckup() {
  const api = useApi();
  const [state, setState] = useState<CheckupState>(CHECKUP_IDLE);
  const running = useRef(false);

  const start = useCallback(
    async (body: CheckupRequest = {}) => {
      if (running.current) return;
      running.current = true;
      setState({ ...CHECKUP_IDLE, phase: 'running' });
      try {
        await api.modelCheckup(body, (line) => setState((prev) => checkupReducer(prev, line)));
        // A stream that ended without its done line was cut short.
        setState((prev) =>
          prev.phase === 'running'
            ? { ...prev, phase: 'failed', steps: {}, error: 'The check-up stopped before it finished. Try again.' }
            : prev,
        );
      } catch (e) {
        setState((prev) => ({ ...prev, phase: 'failed', steps: {}, error: toApiError(e).detail }));
      } finally {
        running.current = false;
      }
    },
    [api],
  );

  return { state, start, busy: state.phase === 'running' };
}

// ------------------------------------------------------------------------------ chats

export function useSessions() {
  const api = useApi();
  return useQuery<Session[], ApiError>({
    queryKey: queryKeys.sessions,
    queryFn: () => api.listSessions(100).catch(rejectAsApiError),
  });
}

/** Search across every chat; nothing is asked until there are words. */
export function useSessionSearch(q: string) {
  const api = useApi();
  const words = q.trim();
  return useQuery<SearchHit[], ApiError>({
    queryKey: queryKeys.sessionSearch(words),
    queryFn: () => api.searchSessions(words).catch(rejectAsApiError),
    enabled: words !== '',
  });
}

/**
 * A chat's stored transcript. Fetched when the chat is opened; what happens after that arrives
 * as live events, so it is not fetched again on its own.
 */
export function useSessionMessages(sessionId: string | null) {
  const api = useApi();
  return useQuery<MessageRow[], ApiError>({
    queryKey: queryKeys.messages(sessionId ?? ''),
    queryFn: () => api.sessionMessages(sessionId ?? '', 500).catch(rejectAsApiError),
    enabled: sessionId !== null,
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
  });
}

export function useRenameSession() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, { id: string; title: string }>({
    mutationFn: ({ id, title }) => api.renameSession(id, title).catch(rejectAsApiError),
    onSuccess: (_res, { id, title }) => applySessionUpdated(qc, { session_id: id, title }),
  });
}

export function useDeleteSession() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    mutationFn: (id) => api.deleteSession(id).catch(rejectAsApiError),
    onSuccess: (_res, id) => {
      qc.setQueryData<Session[]>(queryKeys.sessions, (list) => list?.filter((s) => s.id !== id));
      qc.removeQueries({ queryKey: queryKeys.messages(id) });
      void qc.invalidateQueries({ queryKey: ['sessions', 'search'] });
    },
  });
}

/** A chat's "Make this a rule?" cards: pending ones, plus any answered while it is open. */
export function useRuleProposals(sessionId: string | null) {
  const api = useApi();
  return useQuery<RuleProposal[], ApiError>({
    queryKey: queryKeys.ruleProposals(sessionId ?? ''),
    queryFn: () => api.ruleProposals(sessionId ?? '', 'pending').catch(rejectAsApiError),
    enabled: sessionId !== null,
  });
}

export function useDecideRuleProposal() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<RuleProposal, ApiError, { id: string; decision: RuleDecision }>({
    mutationFn: ({ id, decision }) => api.decideRuleProposal(id, decision).catch(rejectAsApiError),
    onSuccess: (p) => applyRuleProposal(qc, p),
  });
}

/** Uploads a file to attach to a message; answers the name it was stored under. */
export function useUploadFile() {
  const api = useApi();
  return useMutation<FileInfo, ApiError, File>({
    mutationFn: (file) => api.uploadFile(file, file.name, 'upload').catch(rejectAsApiError),
  });
}

// ------------------------------------------------------------------------------ tasks

export function useTasks() {
  const api = useApi();
  return useQuery<Task[], ApiError>({
    queryKey: queryKeys.tasks,
    queryFn: () => api.listTasks().catch(rejectAsApiError),
  });
}

/** One task, kept live by `task.updated` and `task.run_progress`; starts from its list entry. */
export function useTask(taskId: string | null) {
  const api = useApi();
  const qc = useQueryClient();
  return useQuery<Task, ApiError>({
    queryKey: queryKeys.task(taskId ?? ''),
    queryFn: () => api.getTask(taskId ?? '').catch(rejectAsApiError),
    enabled: taskId !== null,
    initialData: () => qc.getQueryData<Task[]>(queryKeys.tasks)?.find((t) => t.task_id === taskId),
    initialDataUpdatedAt: () => qc.getQueryState(queryKeys.tasks)?.dataUpdatedAt,
  });
}

/** A run's whole log (only asked for when the embedded last 200 lines are not enough). */
export function useRunEvents(taskId: string, runId: string, enabled: boolean) {
  const api = useApi();
  return useQuery<ProgressUpdate[], ApiError>({
    queryKey: queryKeys.runEvents(taskId, runId),
    queryFn: () => api.runEvents(taskId, runId).catch(rejectAsApiError),
    enabled,
  });
}

export function usePreviewTask() {
  const api = useApi();
  return useMutation<TaskPreview, ApiError, string>({
    mutationFn: (prompt) => api.previewTask(prompt).catch(rejectAsApiError),
  });
}

export function useCreateTask() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Task, ApiError, string>({
    mutationFn: (prompt) => api.createTask({ prompt }).catch(rejectAsApiError),
    onSuccess: (task) => putTask(qc, task),
  });
}

/** Every change to a task answers the task as it is now, which goes straight into the cache. */
export type TaskAction =
  | { kind: 'patch'; patch: TaskPatch }
  | { kind: 'approve' | 'decline' | 'run-now' | 'archive' | 'rerun' }
  | { kind: 'chat'; message: string }
  | { kind: 'clarifications'; answers: ClarificationAnswer[] }
  | { kind: 'cancel-run' | 'retry-run'; runId: string }
  | { kind: 'answer-run'; runId: string; answer: string };

export function useTaskAction(taskId: string) {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Task, ApiError, TaskAction>({
    mutationFn: (action) => {
      const call = (): Promise<Task> => {
        switch (action.kind) {
          case 'patch':
            return api.patchTask(taskId, action.patch);
          case 'approve':
            return api.approveTask(taskId);
          case 'decline':
            return api.declineTask(taskId);
          case 'run-now':
            return api.runTaskNow(taskId);
          case 'archive':
            return api.archiveTask(taskId);
          case 'rerun':
            return api.rerunTask(taskId);
          case 'chat':
            return api.taskChat(taskId, action.message);
          case 'clarifications':
            return api.answerClarifications(taskId, action.answers);
          case 'cancel-run':
            return api.cancelRun(taskId, action.runId);
          case 'retry-run':
            return api.retryRun(taskId, action.runId);
          case 'answer-run':
            return api.answerRun(taskId, action.runId, action.answer);
        }
      };
      return call().catch(rejectAsApiError);
    },
    onSuccess: (task) => putTask(qc, task),
  });
}

export function useDeleteTask() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    mutationFn: (id) => api.deleteTask(id).catch(rejectAsApiError),
    onSuccess: (_res, id) => dropTask(qc, id),
  });
}

// ------------------------------------------------------------------------------ notifications

/** The feed, newest first, with the unread count of the whole feed; live from `notification.*`. */
export function useNotifications() {
  const api = useApi();
  const qc = useQueryClient();
  return useQuery<NotificationList, ApiError>({
    queryKey: queryKeys.notifications,
    queryFn: async () => {
      const feed = await api.listNotifications(FEED_LIMIT, false).catch(rejectAsApiError);
      qc.setQueryData<Bootstrap>(queryKeys.bootstrap, (b) => (b ? { ...b, unread_notifications: feed.unread } : b));
      return feed;
    },
  });
}

/** The unread count for the sidebar: the feed's, or bootstrap's until the feed is read. */
export function useUnreadCount(fallback: number): number {
  const feed = useNotifications();
  return feed.data?.unread ?? fallback;
}

export type NotificationAction = { kind: 'read' | 'delete'; id: string } | { kind: 'read-all' | 'delete-all' };

/** Mark read, mark all read, delete one, clear all; the cache changes at once on success. */
export function useNotificationAction() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, NotificationAction>({
    mutationFn: (action) => {
      switch (action.kind) {
        case 'read':
          return api.readNotification(action.id).catch(rejectAsApiError);
        case 'delete':
          return api.deleteNotification(action.id).catch(rejectAsApiError);
        case 'read-all':
          return api.readAllNotifications().catch(rejectAsApiError);
        case 'delete-all':
          return api.deleteAllNotifications().catch(rejectAsApiError);
      }
    },
    onSuccess: (_ok, action) => {
      switch (action.kind) {
        case 'read':
          return markNotificationsRead(qc, action.id);
        case 'delete':
          return dropNotifications(qc, action.id);
        case 'read-all':
          return markNotificationsRead(qc, null);
        case 'delete-all':
          return dropNotifications(qc, null);
      }
    },
  });
}

/** Answers a task's question or approves / declines its plan from a notification. */
export type TaskReply =
  | { kind: 'answer'; taskId: string; runId: string; answer: string }
  | { kind: 'approve' | 'decline'; taskId: string };

/** The task as it is now goes into the cache; the notification itself changes by its event. */
export function useTaskReply() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Task, ApiError, TaskReply>({
    mutationFn: (reply) => {
      const call =
        reply.kind === 'answer'
          ? api.answerRun(reply.taskId, reply.runId, reply.answer)
          : reply.kind === 'approve'
            ? api.approveTask(reply.taskId)
            : api.declineTask(reply.taskId);
      return call.catch(rejectAsApiError);
    },
    onSuccess: (task) => putTask(qc, task),
  });
}

// ------------------------------------------------------------------------------ webhooks

export function useHooks() {
  const api = useApi();
  return useQuery<Hook[], ApiError>({
    queryKey: queryKeys.hooks,
    queryFn: () => api.listHooks().catch(rejectAsApiError),
    // Calls arrive without an event of their own; keep the counts reasonably fresh.
    refetchInterval: 15_000,
  });
}

export function useCreateHook() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<NewHook, ApiError, string>({
    mutationFn: (name) => api.createHook(name).catch(rejectAsApiError),
    onSuccess: (made) => {
      const { secret: _secret, ...hook } = made;
      qc.setQueryData<Hook[]>(queryKeys.hooks, (list) => (list ? [...list.filter((h) => h.id !== hook.id), hook] : list));
      void qc.invalidateQueries({ queryKey: queryKeys.hooks });
    },
  });
}

export function useDeleteHook() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    mutationFn: (id) => api.deleteHook(id).catch(rejectAsApiError),
    onSuccess: (_ok, id) => qc.setQueryData<Hook[]>(queryKeys.hooks, (list) => list?.filter((h) => h.id !== id)),
  });
}

// ------------------------------------------------------------------------------ devices

/** Every device, online ones first; live from `node.updated` and `node.deleted`. */
export function useNodes() {
  const api = useApi();
  return useQuery<Node[], ApiError>({
    queryKey: queryKeys.nodes,
    queryFn: async () => sortNodes(await api.listNodes().catch(rejectAsApiError)),
  });
}

/**
 * Whether phones on the network can reach Sentient (the LAN listener). `refetchInterval` polls
 * while a change of the settings is still being applied (the engine starts the listener after it
 * answers, and publishes no event when it is up).
 */
export function useLanStatus(options: { refetchInterval?: number | false } = {}) {
  const api = useApi();
  return useQuery<LanStatus, ApiError>({
    queryKey: queryKeys.lan,
    queryFn: () => api.lanStatus().catch(rejectAsApiError),
    refetchInterval: options.refetchInterval ?? false,
  });
}

/** A new single-use pairing code (each click makes a fresh one). */
export function useCreatePairing() {
  const api = useApi();
  return useMutation<Pairing, ApiError, void>({
    mutationFn: () => api.createPairing().catch(rejectAsApiError),
  });
}

export function useRenameNode() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Node, ApiError, { id: string; name: string }>({
    mutationFn: ({ id, name }) => api.renameNode(id, name).catch(rejectAsApiError),
    onSuccess: (node) => putNode(qc, node),
  });
}

export function useDeleteNode() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    mutationFn: (id) => api.deleteNode(id).catch(rejectAsApiError),
    onSuccess: (_ok, id) => dropNode(qc, id),
  });
}

/** Asks a device to do one thing; the reply (which may be `ok: false`) is the mutation's data. */
export function useInvokeNode(nodeId: string) {
  const api = useApi();
  return useMutation<InvokeReply, ApiError, InvokeRequest>({
    mutationFn: (body) => api.invokeNode(nodeId, body).catch(rejectAsApiError),
  });
}

// ------------------------------------------------------------------------------ apps and tool servers

/** Every app with its state and tools; live from `integration.updated`. */
export function useIntegrations() {
  const api = useApi();
  return useQuery<Integration[], ApiError>({
    queryKey: queryKeys.integrations,
    queryFn: () => api.listIntegrations().catch(rejectAsApiError),
  });
}

/** When each app's change feed was last checked (refreshed each minute while shown). */
export function useFeeds() {
  const api = useApi();
  return useQuery<FeedStatus[], ApiError>({
    queryKey: queryKeys.feeds,
    queryFn: () => api.listFeeds().catch(rejectAsApiError),
    refetchInterval: 60_000,
  });
}

export function useMcpServers() {
  const api = useApi();
  return useQuery<McpServerInfo[], ApiError>({
    queryKey: queryKeys.mcpServers,
    queryFn: () => api.listMcpServers().catch(rejectAsApiError),
  });
}

export function usePrivacyFilters(id: string, enabled: boolean) {
  const api = useApi();
  return useQuery<FilterLists, ApiError>({
    queryKey: queryKeys.privacyFilters(id),
    queryFn: () => api.privacyFilters(id).catch(rejectAsApiError),
    enabled,
  });
}

/** Whether a connect answer asks to sign in in the browser (else it is the connected app). */
export function isSignIn(answer: ConnectAnswer): answer is Extract<ConnectAnswer, { auth_url: string }> {
  return typeof (answer as { auth_url?: unknown }).auth_url === 'string';
}

export function useConnectIntegration() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<ConnectAnswer, ApiError, { id: string; fields: Record<string, string>; access?: IntegrationAccess }>({
    onMutate: () => dropStaleReads(qc, queryKeys.integrations),
    mutationFn: ({ id, fields, access }) => api.connectIntegration(id, fields, access).catch(rejectAsApiError),
    onSuccess: (answer) => {
      // A sign-in leaves the app connecting until it finishes (then `integration.updated`).
      if (isSignIn(answer)) void qc.invalidateQueries({ queryKey: queryKeys.integrations });
      else putIntegration(qc, answer);
      void qc.invalidateQueries({ queryKey: queryKeys.feeds });
    },
    // A failed attempt shows on the app too (its status and error sentence).
    onError: () => void qc.invalidateQueries({ queryKey: queryKeys.integrations }),
  });
}

export function useDisconnectIntegration() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Integration, ApiError, string>({
    onMutate: () => dropStaleReads(qc, queryKeys.integrations),
    mutationFn: (id) => api.disconnectIntegration(id).catch(rejectAsApiError),
    onSuccess: (app) => {
      putIntegration(qc, app);
      void qc.invalidateQueries({ queryKey: queryKeys.feeds });
      // Tasks that used the app were turned off.
      void qc.invalidateQueries({ queryKey: queryKeys.tasks });
    },
  });
}

export function useTestIntegration() {
  const api = useApi();
  return useMutation<IntegrationTest, ApiError, string>({
    mutationFn: (id) => api.testIntegration(id).catch(rejectAsApiError),
  });
}

export function useSetIntegrationAccess() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Integration, ApiError, { id: string; access: IntegrationAccess }>({
    onMutate: () => dropStaleReads(qc, queryKeys.integrations),
    mutationFn: ({ id, access }) => api.setIntegrationAccess(id, access).catch(rejectAsApiError),
    onSuccess: (app) => putIntegration(qc, app),
  });
}

export function useSetPrivacyFilters() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<FilterLists, ApiError, { id: string; filters: FilterLists }>({
    // The engine saves the lists cleaned (trimmed, lower-cased, no repeats): read them back.
    mutationFn: async ({ id, filters }) => {
      await api.setPrivacyFilters(id, filters).catch(rejectAsApiError);
      return api.privacyFilters(id).catch(rejectAsApiError);
    },
    onSuccess: (filters, { id }) => qc.setQueryData(queryKeys.privacyFilters(id), filters),
  });
}

export function useSyncFeed() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<FeedSyncReply, ApiError, string>({
    mutationFn: (source) => api.syncFeed(source).catch(rejectAsApiError),
    onSettled: () => qc.invalidateQueries({ queryKey: queryKeys.feeds }),
  });
}

/** Adds a tool server; the engine answers once it connected or 15 s passed. */
export function useAddMcpServer() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<McpServerInfo, ApiError, NewMcpServer>({
    mutationFn: (server) => api.addMcpServer(server).catch(rejectAsApiError),
    onSuccess: (server) => {
      putMcpServer(qc, server);
      void qc.invalidateQueries({ queryKey: queryKeys.mcpServers });
      void qc.invalidateQueries({ queryKey: queryKeys.integrations });
    },
  });
}

export function useRemoveMcpServer() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    onMutate: () => dropStaleReads(qc, queryKeys.mcpServers),
    mutationFn: (name) => api.removeMcpServer(name).catch(rejectAsApiError),
    onSuccess: (_ok, name) => {
      dropMcpServer(qc, name);
      void qc.invalidateQueries({ queryKey: queryKeys.integrations });
    },
  });
}

export function useSetMcpAccess() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<McpServerInfo, ApiError, { name: string; access: IntegrationAccess }>({
    onMutate: () => dropStaleReads(qc, queryKeys.mcpServers),
    mutationFn: ({ name, access }) => api.setMcpAccess(name, access).catch(rejectAsApiError),
    onSuccess: (server) => putMcpServer(qc, server),
  });
}

export function useSetMcpEnabled() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<McpServerInfo, ApiError, { name: string; enabled: boolean }>({
    onMutate: () => dropStaleReads(qc, queryKeys.mcpServers),
    mutationFn: ({ name, enabled }) => api.setMcpEnabled(name, enabled).catch(rejectAsApiError),
    onSuccess: (server) => putMcpServer(qc, server),
  });
}

export function useSetMcpValues() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<McpServerInfo, ApiError, { name: string; values: Record<string, string>; enable?: boolean }>({
    onMutate: () => dropStaleReads(qc, queryKeys.mcpServers),
    mutationFn: ({ name, values, enable }) => api.setMcpValues(name, values, enable).catch(rejectAsApiError),
    onSuccess: (server) => putMcpServer(qc, server),
  });
}

export function useTestMcpServer() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<McpTestResult, ApiError, string>({
    mutationFn: (name) => api.testMcpServer(name).catch(rejectAsApiError),
    // A test connects, so the server's state may have changed.
    onSettled: () => qc.invalidateQueries({ queryKey: queryKeys.mcpServers }),
  });
}
