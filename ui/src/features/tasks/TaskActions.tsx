// What you can do with a task as a whole: run it now, pause or resume it, archive or delete it.
// Delete asks once more first.
import { useState } from 'react';
import type { Task } from '../../api';
import { useDeleteTask, type useTaskAction } from './queries';
import { ErrorNotice } from '../../components/Page';
import { isBusy } from './words';

type Action = ReturnType<typeof useTaskAction>;

export function TaskActions({
  task,
  action,
  onDeleted,
  onRan,
}: {
  task: Task;
  action: Action;
  onDeleted: () => void;
  onRan: () => void;
}) {
  const del = useDeleteTask();
  const [confirming, setConfirming] = useState(false);
  const busy = action.isPending || del.isPending;
  const planned = task.plan.length > 0;
  const runnable =
    planned && !isBusy(task) && !['approval_pending', 'clarification_pending', 'declined', 'archived'].includes(task.status);
  const pausable = task.status === 'active' || task.status === 'pending';

  if (confirming) {
    return (
      <div className="task-actions" role="group" aria-label="Delete this task?">
        <span>Delete this task and its runs? This can't be undone.</span>
        <button
          type="button"
          className="btn btn-stop"
          disabled={busy}
          onClick={() => del.mutate(task.task_id, { onSuccess: onDeleted })}
        >
          Yes, delete it
        </button>
        <button type="button" className="btn btn-quiet" disabled={busy} onClick={() => setConfirming(false)}>
          Keep it
        </button>
        <ErrorNotice error={del.error} prefix="Couldn't delete it." />
      </div>
    );
  }
  return (
    <div className="task-actions">
      {runnable ? (
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy}
          // A script job's Run now is a check, whose outcome shows on its Script card, not a run.
          onClick={() => action.mutate({ kind: 'run-now' }, { onSuccess: task.script ? undefined : onRan })}
        >
          {task.script ? 'Check now' : 'Run now'}
        </button>
      ) : null}
      {!task.enabled ? (
        <button type="button" className="btn" disabled={busy} onClick={() => action.mutate({ kind: 'patch', patch: { enabled: true } })}>
          Resume
        </button>
      ) : pausable ? (
        <button type="button" className="btn" disabled={busy} onClick={() => action.mutate({ kind: 'patch', patch: { enabled: false } })}>
          Pause
        </button>
      ) : null}
      {task.status !== 'archived' && !isBusy(task) ? (
        <button type="button" className="btn btn-quiet" disabled={busy} onClick={() => action.mutate({ kind: 'archive' })}>
          Archive
        </button>
      ) : null}
      <button type="button" className="btn btn-quiet" disabled={busy} onClick={() => setConfirming(true)}>
        Delete
      </button>
    </div>
  );
}
