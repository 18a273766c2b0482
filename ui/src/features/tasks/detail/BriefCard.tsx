// The task's brief: one short summary of what the task is doing, kept up to date by its runs and
// by the person. What the person writes is marked "Your words"; runs follow it and can't change it.
import { useState } from 'react';
import type { Config, Task } from '../../../api';
import { useConfig } from '../../../api/shared';
import { useTaskAction } from '../queries';
import { ErrorNotice } from '../../../components/Page';
import { BRIEF_FIELDS, type BriefField } from '../summary';
import { localTime } from '../../../components/time';

/** The engine's default for `tasks.brief_chars`, until the settings have loaded. */
const DEFAULT_LIMIT = 1500;

const HINTS: Record<BriefField, string> = {
  goal: 'What the task is for, in a sentence.',
  constraints: 'Rules it must keep to: budgets, sites to avoid, people not to contact.',
  decisions: 'What was decided, and why.',
  done: 'What is finished.',
  open: 'What is still to do or unanswered.',
  current_focus: 'What it is working on now.',
  where: 'Where things are: files, sites, people, ids.',
  risks: 'What could go wrong.',
};

type Brief = NonNullable<Task['brief']>;

/** The brief's length as the engine counts it ("Label (the person's own words): text" lines). */
function renderedLength(brief: Brief | null, field: BriefField, text: string): number {
  const mine = new Set(brief?.user_fields ?? []);
  const value = text.trim();
  if (value) mine.add(field);
  const written = BRIEF_FIELDS.map(([f, label]) => {
    const t = f === field ? value : (brief?.[f]?.trim() ?? '');
    return t ? `${label}${mine.has(f) ? " (the person's own words)" : ''}: ${t}` : null;
  })
    .filter((line): line is string => line !== null)
    .join('\n');
  return [...written].length;
}

function whoWords(by: string | null | undefined): string {
  if (by === 'user') return 'by you';
  if (by === 'agent') return 'by a run';
  return '';
}

export function BriefCard({ task }: { task: Task }) {
  const action = useTaskAction(task.task_id);
  const config = useConfig();
  const limit = (config.data as Partial<Config> | undefined)?.tasks?.brief_chars ?? DEFAULT_LIMIT;
  const [editing, setEditing] = useState<BriefField | null>(null);
  const [draft, setDraft] = useState('');
  const brief = task.brief;
  const yours = new Set(brief?.user_fields ?? []);
  const empty = !brief || BRIEF_FIELDS.every(([f]) => !brief[f]?.trim());

  const edit = (field: BriefField) => {
    action.reset();
    setDraft(brief?.[field] ?? '');
    setEditing(field);
  };
  const cancel = () => {
    action.reset();
    setEditing(null);
  };

  return (
    <section className="task-section brief-card" aria-labelledby={`brief-title-${task.task_id}`} data-testid="brief-card">
      <h3 id={`brief-title-${task.task_id}`}>Brief</h3>
      <p className="muted">
        What this task is doing, kept short by its runs and by you. Runs follow what you write here and don't change it.
      </p>
      {empty ? (
        <p className="muted" data-testid="brief-empty">
          No brief yet. Runs fill it in as they work, or write any part of it yourself.
        </p>
      ) : null}
      <dl className="brief-fields">
        {BRIEF_FIELDS.map(([field, label]) => {
          const text = brief?.[field]?.trim() ? brief[field] : null;
          const isEditing = editing === field;
          const length = isEditing ? renderedLength(brief, field, draft) : 0;
          return (
            <div key={field} className={`brief-field${text ? '' : ' brief-field-empty'}`} data-testid={`brief-${field}`}>
              <dt>
                <span>{label}</span>
                {text && yours.has(field) ? (
                  <span className="brief-yours" data-testid="brief-yours">
                    Your words
                  </span>
                ) : null}
              </dt>
              <dd>
                {isEditing ? (
                  <form
                    className="brief-editor"
                    onSubmit={(e) => {
                      e.preventDefault();
                      if (length > limit) return;
                      const value = draft.trim() === '' ? null : draft;
                      action.mutate({ kind: 'patch', patch: { brief: { [field]: value } } }, { onSuccess: () => setEditing(null) });
                    }}
                  >
                    <textarea
                      aria-label={label}
                      placeholder={HINTS[field]}
                      rows={3}
                      value={draft}
                      autoFocus
                      onChange={(e) => setDraft(e.target.value)}
                      onKeyDown={(e) => {
                        if (e.key === 'Escape') cancel();
                      }}
                    />
                    <p className={`notes-count${length > limit ? ' over' : ''}`}>
                      The whole brief: {length} / {limit} characters
                      {length > limit ? ` — ${length - limit} too many. Write it shorter to save.` : ''}
                    </p>
                    {draft.trim() === '' && text ? <p className="muted">Saving it empty clears this part of the brief.</p> : null}
                    <ErrorNotice error={action.error} prefix={`Couldn't save the ${label.toLowerCase()}.`} />
                    <div className="task-actions">
                      <button type="submit" className="btn btn-primary" disabled={action.isPending || length > limit}>
                        Save
                      </button>
                      <button type="button" className="btn btn-quiet" onClick={cancel}>
                        Cancel
                      </button>
                    </div>
                  </form>
                ) : (
                  <>
                    {text ? <span className="brief-text">{text}</span> : <span className="brief-text muted">Not written yet</span>}
                    <button type="button" className="btn btn-quiet btn-small card-tools" aria-label={`${text ? 'Edit' : 'Write'} ${label}`} onClick={() => edit(field)}>
                      {text ? 'Edit' : 'Write'}
                    </button>
                  </>
                )}
              </dd>
            </div>
          );
        })}
      </dl>
      {brief?.updated_at ? (
        <p className="muted brief-updated" data-testid="brief-updated">
          Updated {localTime(brief.updated_at)} {whoWords(brief.updated_by)}
        </p>
      ) : null}
    </section>
  );
}
