// The cache's plumbing: the query keys every area's hooks (features/<area>/queries.ts) read
// under, the query client, and `applyEvent`, the one place where live bus events update the
// cache, so every view stays current without reloading. The cache writers below are the ones a
// live event needs; an area's hooks reuse them after a change.
import { QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { Integration } from './calls';
import { useApi } from './context';
import { toApiError, UNREACHABLE } from './errors';
import { assertNever, isDomainEvent } from './events';
import type {
  Bootstrap,
  DomainEvent,
  EngineEvent,
  ModelBusy,
  Node,
  Notification,
  NotificationList,
  ProgressUpdate,
  RuleProposal,
  Session,
  StopState,
  Task,
} from './types';

export const queryKeys = {
  bootstrap: ['bootstrap'] as const,
  /** Mutation key shared by Stop everything and Resume, so their last error can be shown once. */
  stopControl: ['stop-control'] as const,
  /** Mutation key of a model Test in Settings > Models: a successful one means a model answered. */
  modelTest: ['models', 'test'] as const,
  stop: ['stop'] as const,
  config: ['config'] as const,
  configSchema: ['config-schema'] as const,
  providers: ['models', 'providers'] as const,
  localModels: ['models', 'local'] as const,
  roles: ['models', 'roles'] as const,
  modelBusy: ['models', 'busy'] as const,
  hardware: ['system', 'hardware'] as const,
  secrets: ['secrets'] as const,
  // Under ['secrets'], so a `config.updated` for secrets refreshes it too.
  secretsStore: ['secrets', 'store'] as const,
  presets: ['models', 'presets'] as const,
  sessions: ['sessions', 'list'] as const,
  sessionSearch: (q: string) => ['sessions', 'search', q] as const,
  // Kept apart from ['sessions', ...] so refreshing the list never refetches an open transcript.
  messages: (sessionId: string) => ['chat-messages', sessionId] as const,
  subagents: (sessionId: string) => ['chat-subagents', sessionId] as const,
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
  terminalStatus: ['terminal', 'status'] as const,
  /** The browser's status (`browser.updated` keeps it current). */
  browserStatus: ['browser', 'status'] as const,
  /** The newest picture of the browser's page (`browser.frame`). */
  browserFrame: ['browser', 'frame'] as const,
  browserProfiles: ['browser', 'profiles'] as const,
};

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
export function applySessionUpdated(qc: QueryClient, data: unknown): void {
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
export function applyRuleProposal(qc: QueryClient, data: unknown): void {
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
    case 'browser.updated':
      qc.setQueryData(queryKeys.browserStatus, ev.data);
      // Which profile is open shows in the profile list too.
      void qc.invalidateQueries({ queryKey: queryKeys.browserProfiles });
      return true;
    case 'browser.frame':
      qc.setQueryData(queryKeys.browserFrame, ev.data);
      return true;
    case 'subagent.updated': {
      const helper = ev.data as { session_id?: unknown; background?: unknown; status?: unknown } | null;
      if (typeof helper?.session_id !== 'string') return true;
      void qc.invalidateQueries({ queryKey: queryKeys.subagents(helper.session_id) });
      // A background helper's summary joined its chat as a message.
      if (helper.background === true && helper.status !== 'running') {
        void qc.invalidateQueries({ queryKey: queryKeys.messages(helper.session_id) });
      }
      return true;
    }
    case 'chat.turn_completed':
      // For services that learn from turns; the window has the turn from its own events.
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
export function dropStaleReads(qc: QueryClient, queryKey: readonly unknown[]): Promise<void> {
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

/** A failed call as the window's ApiError (every hook's calls end with `.catch(rejectAsApiError)`). */
export const rejectAsApiError = (e: unknown) => Promise.reject(toApiError(e));

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
