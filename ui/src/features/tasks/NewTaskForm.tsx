// Describe a task in your own words. Preview shows what Sentient makes of it (name, schedule)
// before anything is saved; Create task saves it and planning starts.
import { useState } from 'react';
import { useCreateTask, usePreviewTask } from '../../api/queries';
import { ErrorNotice } from '../../components/Page';
import { PRIORITY_WORDS, scheduleWords } from './words';

export function NewTaskForm({ onCreated }: { onCreated: (taskId: string) => void }) {
  const [prompt, setPrompt] = useState('');
  const preview = usePreviewTask();
  const create = useCreateTask();
  const words = prompt.trim();
  const busy = preview.isPending || create.isPending;

  const onPreview = () => {
    create.reset();
    preview.mutate(words);
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
        if (words && !busy) onCreate();
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
        <button type="submit" className="btn btn-primary" disabled={!words || busy}>
          {create.isPending ? 'Creating…' : 'Create task'}
        </button>
      </div>
      <ErrorNotice error={preview.error} prefix="Couldn't preview it." />
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
          <p className="muted">Sentient plans the steps once you create it, and asks you to approve the plan.</p>
        </div>
      ) : null}
    </form>
  );
}
