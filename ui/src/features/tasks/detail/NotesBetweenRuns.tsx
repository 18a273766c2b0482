// "Notes between runs": what a repeating task's runs keep for each other (mostly the list of what
// they already told you), so each run reports only what is new. The person can read, edit or
// clear them; a run's new note arrives live through `task.updated`.
import { useState } from 'react';
import type { Config, Task } from '../../../api';
import { useConfig } from '../../../api/shared';
import { useTaskAction } from '../queries';
import { ErrorNotice } from '../../../components/Page';

/** The engine's default for `tasks.continuity.notepad_chars`, until the settings have loaded. */
const DEFAULT_LIMIT = 1500;

type Mode = 'view' | 'editing' | 'clearing';

/** Characters as the engine counts them (code points, after trimming). */
export function noteLength(text: string): number {
  return [...text.trim()].length;
}

export function NotesBetweenRuns({ task }: { task: Task }) {
  const action = useTaskAction(task.task_id);
  const config = useConfig();
  const limit = (config.data as Partial<Config> | undefined)?.tasks?.continuity?.notepad_chars ?? DEFAULT_LIMIT;
  const [mode, setMode] = useState<Mode>('view');
  const [draft, setDraft] = useState('');
  // The notes as they were when editing began, to tell when a run changes them meanwhile.
  const [base, setBase] = useState<string | null>(null);

  // A watch that only tells the person never runs the model, so it keeps no notes.
  if (task.schedule?.type !== 'recurring' || task.script?.then === 'notify') return null;
  const notes = task.notepad?.trim() ? task.notepad : null;
  const length = noteLength(draft);
  const over = length > limit;
  const hasRuns = task.runs.length > 0;

  const startEditing = () => {
    action.reset();
    setDraft(notes ?? '');
    setBase(notes);
    setMode('editing');
  };
  const back = () => {
    action.reset();
    setMode('view');
  };
  const clear = (forget: boolean) =>
    action.mutate(
      { kind: 'patch', patch: forget ? { notepad: null, forget_earlier_runs: true } : { notepad: null } },
      { onSuccess: () => setMode('view') },
    );

  return (
    <section className="task-section notes-card" aria-labelledby={`notes-title-${task.task_id}`} data-testid="notes-card">
      <div className="card-head">
        <h3 id={`notes-title-${task.task_id}`}>Notes between runs</h3>
        {mode === 'view' ? (
          <div className="card-tools" data-testid="notes-tools">
            <button type="button" className="btn btn-quiet btn-small" onClick={startEditing}>
              Edit
            </button>
            {notes || hasRuns ? (
              <button
                type="button"
                className="btn btn-quiet btn-small"
                onClick={() => {
                  action.reset();
                  setMode('clearing');
                }}
              >
                Clear
              </button>
            ) : null}
          </div>
        ) : null}
      </div>
      <p className="muted notes-hint">Every run reads these notes and what the last few runs found, so it tells you only what's new.</p>

      {mode === 'editing' ? (
        <form
          className="notes-editor"
          onSubmit={(e) => {
            e.preventDefault();
            if (over) return;
            action.mutate({ kind: 'patch', patch: { notepad: draft.trim() === '' ? null : draft } }, { onSuccess: () => setMode('view') });
          }}
        >
          <textarea
            className="notes-input"
            aria-label="Notes between runs"
            aria-describedby={`notes-count-${task.task_id}`}
            rows={Math.min(14, Math.max(5, draft.split('\n').length + 1))}
            value={draft}
            autoFocus
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') back();
            }}
          />
          <p id={`notes-count-${task.task_id}`} className={`notes-count${over ? ' over' : ''}`} data-testid="notes-count">
            {length} / {limit} characters
            {over ? ` — ${length - limit} too many. Shorten the notes to save them.` : ''}
          </p>
          {notes !== base ? (
            <p className="muted" role="status">
              A run saved new notes while you were editing. Saving replaces them with yours.
            </p>
          ) : null}
          <ErrorNotice error={action.error} prefix="Couldn't save the notes." />
          <div className="task-actions">
            <button type="submit" className="btn btn-primary" disabled={action.isPending || over}>
              Save
            </button>
            <button type="button" className="btn btn-quiet" onClick={back}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          {notes ? (
            <div className="notes-text" data-testid="notes-text">
              {notes}
            </div>
          ) : (
            <p className="muted notes-empty" data-testid="notes-empty">
              No notes yet. Each run will keep notes here on what it has already told you.
            </p>
          )}
          {notes && task.notepad_untrusted ? (
            <p className="notes-untrusted" data-testid="notes-untrusted">
              Includes outside content from {task.notepad_untrusted}
            </p>
          ) : null}
        </>
      )}

      {mode === 'clearing' ? (
        <div className="notes-clear" role="group" aria-label="Clear the notes">
          <p>
            Clear the notes? The next run starts a fresh list. <strong>Clear and forget earlier runs</strong> also stops it from being
            reminded of what earlier runs found, so it may tell you things again.
          </p>
          <ErrorNotice error={action.error} prefix="Couldn't clear the notes." />
          <div className="task-actions">
            <button type="button" className="btn btn-stop" disabled={action.isPending} onClick={() => clear(false)}>
              Clear
            </button>
            <button type="button" className="btn btn-stop" disabled={action.isPending} onClick={() => clear(true)}>
              Clear and forget earlier runs
            </button>
            <button type="button" className="btn btn-quiet" onClick={back}>
              Keep them
            </button>
          </div>
        </div>
      ) : null}
    </section>
  );
}
