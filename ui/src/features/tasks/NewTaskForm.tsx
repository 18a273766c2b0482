// Describe a task in your own words. Preview shows what Sentient makes of it (name, schedule)
// before anything is saved; Create task saves it and planning starts.
//
// A Preview that failed means the model didn't answer (or answered nonsense), and planning needs
// the same model, so a task created now is sure to fail: Create stays off, with the error, the
// buttons that fix it and Try again, until a preview works. A preview that came back (even one
// read from the words alone while the model is slow) never blocks Create, but one the model
// didn't answer (`model_error`) warns first: planning needs that model.
import { useId, useState } from 'react';
import type { ApiError } from '../../api';
import { useCreateTask, usePreviewTask } from './queries';
import { actionsFor, ErrorActions } from '../../components/ErrorActions';
import { ErrorNotice } from '../../components/Page';
import { PRIORITY_WORDS, scheduleWords } from './words';

export const BLOCKED_WORDS = "Create task is off until the preview works: without an answer from the model, Sentient can't plan the task.";
export const NO_MODEL_WORDS =
  "The model didn't answer, so this preview comes from your words alone. Sentient needs the model to plan the task: a task created now waits with \"Couldn't plan\" until the model answers.";

export function NewTaskForm({ onCreated }: { onCreated: (taskId: string) => void }) {
  const [prompt, setPrompt] = useState('');
  const preview = usePreviewTask();
  const create = useCreateTask();
  // The last preview's failure; it outlives edits to the words (the model is still down) and
  // goes once a preview works.
  const [failed, setFailed] = useState<ApiError | null>(null);
  const blockedId = useId();
  const words = prompt.trim();
  const busy = preview.isPending || create.isPending;
  const blocked = failed !== null;
  const noModel = preview.data?.model_error ?? null;
  const noModelId = useId();

  const onPreview = () => {
    create.reset();
    preview.mutate(words, {
      onSuccess: () => setFailed(null),
      onError: (error) => setFailed(error),
    });
  };
  const onCreate = () => {
    create.mutate(words, {
      onSuccess: (task) => {
        setPrompt('');
        preview.reset();
        onCreated(task.task_id);
      },
    });
  };

  return (
    <form
      className="card new-task"
      aria-label="New task"
      onSubmit={(e) => {
        e.preventDefault();
        if (words && !busy && !blocked) onCreate();
      }}
    >
      <label className="field">
        <span className="field-label">Describe a task</span>
        <textarea
          className="new-task-prompt"
          rows={2}
          value={prompt}
          placeholder="e.g. Every Monday at 9, sum up last week's unread email."
          onChange={(e) => {
            setPrompt(e.target.value);
            if (preview.data || preview.error) preview.reset();
          }}
        />
      </label>
      <div className="new-task-actions">
        <button type="button" className="btn" disabled={!words || busy} onClick={onPreview}>
          {preview.isPending ? 'Looking…' : 'Preview'}
        </button>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!words || busy || blocked}
          aria-describedby={blocked ? blockedId : noModel ? noModelId : undefined}
        >
          {create.isPending ? 'Creating…' : 'Create task'}
        </button>
      </div>
      {failed ? <PreviewFailed error={failed} id={blockedId} busy={busy} canRetry={words !== ''} onRetry={onPreview} /> : null}
      <ErrorNotice error={create.error} prefix="Couldn't create the task." />
      {preview.data ? (
        <div className="task-preview" data-testid="task-preview" aria-label="Preview">
          <p className="task-preview-title">
            <strong>{preview.data.name}</strong>
          </p>
          {preview.data.description ? <p>{preview.data.description}</p> : null}
          <dl className="facts">
            <dt>When</dt>
            <dd data-testid="preview-schedule">{scheduleWords(preview.data.schedule)}</dd>
            <dt>Priority</dt>
            <dd>{PRIORITY_WORDS[preview.data.priority] ?? 'Normal'}</dd>
          </dl>
          {noModel ? (
            <div className="notice notice-warn" role="status" data-testid="preview-no-model">
              <p id={noModelId}>{NO_MODEL_WORDS}</p>
              <p className="muted">{noModel}</p>
              <ErrorActions sentence={noModel} />
            </div>
          ) : (
            <p className="muted">Sentient plans the steps once you create it, and asks you to approve the plan.</p>
          )}
        </div>
      ) : null}
    </form>
  );
}

/** Why the preview failed, the buttons that fix it, Try again, and why Create is off. */
function PreviewFailed({
  error,
  id,
  busy,
  canRetry,
  onRetry,
}: {
  error: ApiError;
  id: string;
  busy: boolean;
  canRetry: boolean;
  onRetry: () => void;
}) {
  // ErrorActions offers Try again itself when the sentence says so; otherwise it is added here.
  const ownRetry = !actionsFor(error.detail, true).some((a) => a.kind === 'retry');
  return (
    <div className="notice notice-error" role="alert" data-testid="preview-error">
      <p>Couldn't preview it. {error.detail}</p>
      <p className="muted" id={id}>
        {BLOCKED_WORDS}
      </p>
      <ErrorActions sentence={error.detail} onRetry={canRetry ? onRetry : undefined} />
      {ownRetry && canRetry ? (
        <div className="error-actions">
          <button type="button" className="btn btn-primary" disabled={busy} onClick={onRetry}>
            {busy ? 'Looking…' : 'Try again'}
          </button>
        </div>
      ) : null}
    </div>
  );
}
