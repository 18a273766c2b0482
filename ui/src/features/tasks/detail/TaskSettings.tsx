// Which model runs the task and where its results go besides this app.
import { useState } from 'react';
import type { DeliverTo, Task } from '../../../api';
import type { useTaskAction } from '../queries';

type Action = ReturnType<typeof useTaskAction>;

function deliveryWords(d: DeliverTo): string {
  if (d === 'desktop') return 'Only this app';
  if (d === 'default') return 'This app and your connected chats (as set in Settings)';
  return `This app and ${d.length} chosen chat${d.length === 1 ? '' : 's'}`;
}

export function TaskSettings({ task, action }: { task: Task; action: Action }) {
  const [editing, setEditing] = useState(false);
  const [model, setModel] = useState(task.model ?? '');
  const [deliver, setDeliver] = useState<'default' | 'desktop' | 'chats'>(Array.isArray(task.deliver_to) ? 'chats' : task.deliver_to);

  if (!editing) {
    return (
      <section className="task-section" aria-label="Settings">
        <h3>Settings</h3>
        <dl className="facts">
          <dt>Model</dt>
          <dd>{task.model ?? 'The task model from Settings > Models'}</dd>
          <dt>Results go to</dt>
          <dd>{deliveryWords(task.deliver_to)}</dd>
        </dl>
        <button type="button" className="btn btn-quiet" onClick={() => setEditing(true)}>
          Change settings
        </button>
      </section>
    );
  }
  return (
    <form
      className="task-section"
      aria-label="Settings"
      onSubmit={(e) => {
        e.preventDefault();
        const patch: Parameters<typeof action.mutate>[0] = {
          kind: 'patch',
          patch: {
            model: model.trim() === '' ? null : model.trim(),
            ...(deliver === 'chats' ? {} : { deliver_to: deliver }),
          },
        };
        action.mutate(patch, { onSuccess: () => setEditing(false) });
      }}
    >
      <h3>Settings</h3>
      <label className="field">
        <span className="field-label">Model</span>
        <input value={model} placeholder="Leave empty for the task model from Settings" onChange={(e) => setModel(e.target.value)} />
      </label>
      <label className="field">
        <span className="field-label">Results go to</span>
        <select value={deliver} onChange={(e) => setDeliver(e.target.value as typeof deliver)}>
          <option value="default">This app and your connected chats</option>
          <option value="desktop">Only this app</option>
          {Array.isArray(task.deliver_to) ? <option value="chats">The chats chosen for this task</option> : null}
        </select>
      </label>
      <div className="task-actions">
        <button type="submit" className="btn btn-primary" disabled={action.isPending}>
          Save settings
        </button>
        <button type="button" className="btn btn-quiet" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
