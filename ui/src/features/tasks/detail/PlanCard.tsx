// The steps Sentient will take; while it waits for approval, Approve and Decline.
import type { Task } from '../../../api';
import type { useTaskAction } from '../queries';
import { toolLabel } from '../../chat';

type Action = ReturnType<typeof useTaskAction>;

export function PlanCard({ task, action }: { task: Task; action: Action }) {
  const waiting = task.status === 'approval_pending';
  if (task.plan.length === 0) return null;
  return (
    <section className={`task-section plan-card${waiting ? ' plan-waiting' : ''}`} aria-label="Plan" data-testid="plan-card">
      <h3>The plan</h3>
      <ol className="plan-steps">
        {task.plan.map((step, i) => (
          <li key={i}>
            {step.description}
            {step.tool ? <span className="plan-tool"> · {toolLabel(step.tool)}</span> : null}
          </li>
        ))}
      </ol>
      {waiting ? (
        <>
          <p className="muted">Sentient runs this plan on its own once you approve it.</p>
          <div className="task-actions">
            <button type="button" className="btn btn-primary" disabled={action.isPending} onClick={() => action.mutate({ kind: 'approve' })}>
              Approve
            </button>
            <button type="button" className="btn btn-quiet" disabled={action.isPending} onClick={() => action.mutate({ kind: 'decline' })}>
              Decline
            </button>
          </div>
        </>
      ) : null}
    </section>
  );
}
