// Plain words for what the engine says about a task: its status, its schedule, its times.
import type { ModelBusy, RunStatus, Schedule, Task, TaskStatus } from '../../api';

type JobKind = NonNullable<ModelBusy['job']>;

export const STATUS_WORDS: Record<TaskStatus, string> = {
  planning: 'Planning…',
  clarification_pending: 'Has questions for you',
  approval_pending: 'Waiting for your approval',
  pending: 'Scheduled',
  active: 'Scheduled',
  processing: 'Running',
  waiting_for_user: 'Waiting for your answer',
  completed: 'Done',
  completed_with_errors: 'Done, with some problems',
  error: 'Failed',
  declined: 'Declined',
  cancelled: 'Cancelled',
  archived: 'Archived',
};

export const RUN_STATUS_WORDS: Record<RunStatus, string> = {
  processing: 'Running',
  waiting_for_user: 'Waiting for your answer',
  completed: 'Finished',
  completed_with_errors: 'Finished, with some problems',
  error: 'Failed',
  cancelled: 'Cancelled',
};

export type TaskGroup = 'needs_you' | 'running' | 'scheduled' | 'other';

export const GROUPS: Array<{ id: TaskGroup; title: string }> = [
  { id: 'needs_you', title: 'Needs you' },
  { id: 'running', title: 'Running' },
  { id: 'scheduled', title: 'Scheduled' },
  { id: 'other', title: 'Done and other' },
];

export function groupOf(task: Pick<Task, 'status'>): TaskGroup {
  switch (task.status) {
    case 'approval_pending':
    case 'clarification_pending':
    case 'waiting_for_user':
      return 'needs_you';
    case 'planning':
    case 'processing':
      return 'running';
    case 'active':
    case 'pending':
      return 'scheduled';
    default:
      return 'other';
  }
}

const WEEK = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

function listWords(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function daysWords(days: string[]): string {
  const set = new Set(days);
  const sorted = WEEK.filter((d) => set.has(d));
  if (sorted.length === 7) return 'day';
  if (sorted.length === 5 && WEEK.slice(0, 5).every((d) => set.has(d))) return 'weekday';
  if (sorted.length === 2 && set.has('Saturday') && set.has('Sunday')) return 'Saturday and Sunday';
  return listWords(sorted.length > 0 ? sorted : days);
}

/** The browser's own time zone, to say when a schedule's zone is another one. */
function localZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return 'UTC';
  }
}

/** " (Asia/Tokyo time)" when the task's zone isn't this computer's, else nothing. */
export function zoneNote(timezone: string | null | undefined): string {
  return timezone && timezone !== localZone() ? ` (${timezone} time)` : '';
}

/** The time zone a task's times are read in: its schedule's, else this computer's. */
export function taskZone(task: Pick<Task, 'schedule'>): string | null {
  return task.schedule?.timezone || null;
}

/**
 * A moment on a task's card in the task's own time zone, e.g. "Mon 6 May, 09:00", so it agrees
 * with the schedule it is shown beside; an unknown zone falls back to this computer's.
 */
export function inTaskZone(iso: string | null | undefined, timezone: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' };
  try {
    return d.toLocaleString(undefined, timezone ? { ...options, timeZone: timezone } : options);
  } catch {
    return d.toLocaleString(undefined, options);
  }
}

/** A moment in the task's zone, saying which zone when it isn't this computer's. */
export function taskTime(iso: string | null | undefined, timezone: string | null | undefined): string {
  return iso ? `${inTaskZone(iso, timezone)}${zoneNote(timezone)}` : '';
}

/** `YYYY-MM-DDTHH:MM` (a wall-clock time) as e.g. "Wed 16 Sep 2026 at 09:00". */
function wallClockWords(runAt: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}:\d{2})/.exec(runAt);
  if (!m) return runAt;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  const day = date.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
  return `${day} at ${m[4]}`;
}

/** A schedule in plain words, e.g. "Every weekday at 09:00". */
export function scheduleWords(schedule: Schedule | null | undefined): string {
  if (!schedule) return 'Once, right after you approve it';
  switch (schedule.type) {
    case 'once':
      return schedule.run_at ? `Once, on ${wallClockWords(schedule.run_at)}${zoneNote(schedule.timezone)}` : 'Once, right after you approve it';
    case 'recurring': {
      const at = schedule.time ? ` at ${schedule.time}` : '';
      if (schedule.frequency === 'interval') {
        const n = schedule.interval_minutes ?? 60;
        if (n === 60) return 'Every hour';
        if (n % 60 === 0) return `Every ${n / 60} hours`;
        return `Every ${n} minutes`;
      }
      if (schedule.frequency === 'daily') return `Every day${at}${zoneNote(schedule.timezone)}`;
      return `Every ${daysWords(schedule.days ?? [])}${at}${zoneNote(schedule.timezone)}`;
    }
    case 'triggered':
      if (schedule.source === 'gmail') return 'When a new email arrives';
      if (schedule.source === 'gcalendar') return 'When a calendar event comes up';
      if (schedule.source === 'webhook') return 'When its web address (webhook) is called';
      return `When ${schedule.source} reports ${schedule.event.replace(/_/g, ' ')}`;
  }
}

/** A moment's clock time only, for log lines, in the task's zone like the rest of its card. */
export function clockTime(iso: string, timezone?: string | null): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', second: '2-digit' };
  try {
    return d.toLocaleTimeString(undefined, timezone ? { ...options, timeZone: timezone } : options);
  } catch {
    return d.toLocaleTimeString(undefined, options);
  }
}

export const PAUSED_BY_STOP = 'Paused by Stop everything';

/** The task's state in a few words: "Paused" when turned off, "Paused by Stop everything" for a
 * scheduled task while Stop everything is on (it won't run until Resume). */
export function taskStateWords(task: Pick<Task, 'status' | 'enabled'>, stopped: boolean): string {
  if (!task.enabled) return 'Paused';
  if (stopped && groupOf(task) === 'scheduled') return PAUSED_BY_STOP;
  return STATUS_WORDS[task.status];
}

const JOB_WORDS: Record<JobKind, string> = {
  chat: 'a chat reply',
  interactive: 'something you asked for',
  task: 'another task',
  suggestions: 'suggestions',
  memory: 'memory notes',
  skills: 'skills',
  titles: 'chat titles',
  background: 'background work',
};

/**
 * Why a running run is not moving, when the local model is the reason: it is busy with other
 * work and calls are queued for it, or background work is held back for a chat. Null otherwise
 * (the model may be this run's own, or the run may be using a tool).
 */
export function modelWaitWords(busy: ModelBusy | undefined): string | null {
  if (!busy) return null;
  if (busy.busy && busy.job && busy.job !== 'task' && busy.waiting > 0) {
    return `Waiting for the model (busy with ${JOB_WORDS[busy.job]})`;
  }
  if (!busy.busy && busy.deferred > 0 && busy.deferred_reason === 'chat') return 'Waiting for the model (kept free for your chat)';
  return null;
}

export const PRIORITY_WORDS = ['Urgent', 'Normal', 'Low'];

/** A task that works or waits on its own right now (its plan can't change meanwhile). */
export function isBusy(task: Pick<Task, 'status'>): boolean {
  return task.status === 'planning' || task.status === 'processing' || task.status === 'waiting_for_user';
}

/**
 * True when the task's last planning failed (rather than a run): it is `error` and either never
 * ran, or the change it was last asked for got no plan back.
 */
export function planningFailed(task: Pick<Task, 'status' | 'runs' | 'chat_history'>): boolean {
  if (task.status !== 'error') return false;
  if (task.runs.length === 0) return true;
  const last = task.chat_history[task.chat_history.length - 1];
  return last?.role === 'user';
}

/** A failed task that never ran and was never changed: planning it afresh loses nothing. */
export function planFromScratch(task: Pick<Task, 'runs' | 'chat_history'>): boolean {
  return task.runs.length === 0 && task.chat_history.length === 0;
}

/** What Try again says in the task's own chat when it plans a changed task again. */
export const PLAN_AGAIN_MESSAGE = 'Please try planning this again.';
