// A task whose planning failed: what went wrong in plain words, the buttons its sentence points
// at (Settings > Models, download the model, get Ollama) and Try again, which plans it again.
//
// The engine re-plans through its existing routes: a new task that never ran is made afresh from
// the same words (`POST /api/tasks/{id}/rerun`, which refines and plans it like a new one) and the
// failed one goes, since it holds nothing; a task that has runs or changes of its own is asked to
// plan again in its own chat (`POST /api/tasks/{id}/chat`), so nothing it has is lost.
import { useState } from 'react';
import type { Task } from '../../../api';
import type { useTaskAction } from '../queries';
import { actionsFor, ErrorActions } from '../../../components/ErrorActions';
import { PLAN_AGAIN_MESSAGE, planFromScratch } from '../words';

type Action = ReturnType<typeof useTaskAction>;

export const PLAN_FAILED_LEAD = "Sentient couldn't make a plan for this task.";

export function PlanFailed({
  task,
  action,
  onReplaced,
}: {
  task: Task;
  action: Action;
  /** The failed task was made afresh as `copyId`: open it (and let the failed one go). */
  onReplaced?: (oldId: string, copyId: string) => void;
}) {
  const [trying, setTrying] = useState(false);
  const error = task.error ?? '';
  const retry = () => {
    if (planFromScratch(task) && onReplaced) {
      setTrying(true);
      action.mutate(
        { kind: 'rerun' },
        {
          onSuccess: (copy) => onReplaced(task.task_id, copy.task_id),
          onSettled: () => setTrying(false),
        },
      );
    } else {
      action.mutate({ kind: 'chat', message: PLAN_AGAIN_MESSAGE });
    }
  };
  const busy = trying || action.isPending;
  // ErrorActions offers Try again itself when the sentence says so; otherwise it is added here.
  const ownRetry = !actionsFor(error, true).some((a) => a.kind === 'retry');
  return (
    <div className="notice notice-error plan-failed" role="alert" data-testid="task-error">
      <p>
        {PLAN_FAILED_LEAD} {error}
      </p>
      <ErrorActions sentence={error} onRetry={busy ? undefined : retry} />
      {ownRetry || busy ? (
        <div className="error-actions">
          <button type="button" className="btn btn-primary" disabled={busy} onClick={retry}>
            {busy ? 'Trying again…' : 'Try again'}
          </button>
        </div>
      ) : null}
    </div>
  );
}
