// What a task is doing, in a few lines, for the list's hover card and the Brief card: from its
// brief when it has one, else from what its latest run said, else its description.
import type { Task } from '../../api';

/** The brief's fields in the order they are shown, with their labels (as the engine names them). */
export const BRIEF_FIELDS = [
  ['goal', 'Goal'],
  ['constraints', 'Constraints'],
  ['decisions', 'Decisions'],
  ['done', 'Done'],
  ['open', 'Open'],
  ['current_focus', 'Current focus'],
  ['where', 'Where'],
  ['risks', 'Risks'],
] as const;

export type BriefField = (typeof BRIEF_FIELDS)[number][0];

/** How much of the latest answer the hover card shows. */
export const ANSWER_CHARS = 300;

export type TaskSummary = { lines: Array<{ label: string | null; text: string }>; from: 'brief' | 'answer' | 'description' | 'nothing' };

function clip(text: string, limit: number): string {
  const chars = [...text.trim()];
  return chars.length <= limit ? chars.join('') : `${chars.slice(0, limit).join('').trimEnd()}…`;
}

/** The latest run's final answer (runs come oldest first), or null when none has one yet. */
export function latestAnswer(task: Pick<Task, 'runs'>): string | null {
  for (let i = task.runs.length - 1; i >= 0; i--) {
    const summary = task.runs[i].result?.summary?.trim();
    if (summary) return summary;
  }
  return null;
}

/** Never empty: the brief's goal and current state, else the latest answer, else the description. */
export function taskSummary(task: Pick<Task, 'brief' | 'runs' | 'description'>): TaskSummary {
  const b = task.brief;
  if (b) {
    const lines: TaskSummary['lines'] = [];
    if (b.goal?.trim()) lines.push({ label: 'Goal', text: clip(b.goal, ANSWER_CHARS) });
    // The current state: what it is working on now, else what is still open.
    if (b.current_focus?.trim()) lines.push({ label: 'Now', text: clip(b.current_focus, ANSWER_CHARS) });
    else if (b.open?.trim()) lines.push({ label: 'Still open', text: clip(b.open, ANSWER_CHARS) });
    if (lines.length > 0) return { lines, from: 'brief' };
  }
  const answer = latestAnswer(task);
  if (answer) return { lines: [{ label: 'Last result', text: clip(answer, ANSWER_CHARS) }], from: 'answer' };
  if (task.description.trim()) return { lines: [{ label: null, text: clip(task.description, ANSWER_CHARS) }], from: 'description' };
  return { lines: [{ label: null, text: "This task hasn't run yet." }], from: 'nothing' };
}
