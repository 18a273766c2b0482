// How the feed is laid out: one group per day (Today, Yesterday, then dates), newest day first,
// and newest first within a day. Reading one never moves it (the dot says what is unread).
import type { Notification } from '../../api';

export type DayGroup = { key: string; label: string; items: Notification[] };

function dayKey(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** "Today", "Yesterday", or the date in the person's own words (e.g. "Monday 3 May 2030"). */
export function dayLabel(iso: string, now: Date = new Date()): string {
  const d = new Date(iso);
  const today = dayKey(now);
  const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
  if (dayKey(d) === today) return 'Today';
  if (dayKey(d) === dayKey(yesterday)) return 'Yesterday';
  return d.toLocaleDateString(undefined, {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    ...(d.getFullYear() === now.getFullYear() ? {} : { year: 'numeric' }),
  });
}

export function groupByDay(list: Notification[], now: Date = new Date()): DayGroup[] {
  const groups = new Map<string, DayGroup>();
  const newestFirst = [...list].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  for (const n of newestFirst) {
    const key = dayKey(new Date(n.created_at));
    let group = groups.get(key);
    if (!group) {
      group = { key, label: dayLabel(n.created_at, now), items: [] };
      groups.set(key, group);
    }
    group.items.push(n);
  }
  return [...groups.values()];
}

/** The time of day a notification came, in local time. */
export function timeOfDay(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** True when the task this notification is about was deleted (the engine marks it). */
export function taskDeleted(n: Notification): boolean {
  return n.payload.task_deleted === true;
}

/** Where a task notification leads on the Tasks page: the task, and the run when it names one. */
export function taskHref(n: Notification): string | null {
  if (taskDeleted(n)) return null;
  const taskId = n.task_id ?? (typeof n.payload.task_id === 'string' ? n.payload.task_id : null);
  if (!taskId) return null;
  const runId = typeof n.payload.run_id === 'string' ? n.payload.run_id : null;
  return `#/tasks/${encodeURIComponent(taskId)}${runId ? `/runs/${encodeURIComponent(runId)}` : ''}`;
}

/** What a task notification still asks of the person, if anything. */
export function pendingAsk(n: Notification): 'question' | 'approval' | null {
  const p = n.payload;
  if (p.status || taskDeleted(n)) return null;
  if (p.event === 'question' && typeof p.task_id === 'string' && typeof p.run_id === 'string') return 'question';
  if (p.event === 'approval_needed' && typeof p.task_id === 'string') return 'approval';
  return null;
}

/** How the ask was settled, in plain words. */
export const SETTLED_WORDS: Record<string, string> = {
  answered: 'Answered',
  approved: 'Approved',
  declined: 'Declined',
  expired: 'No longer needed',
  cancelled: 'No longer needed',
  fixed: 'Fixed',
};
