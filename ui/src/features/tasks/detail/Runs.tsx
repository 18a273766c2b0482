// Every run of the task, newest first.
import type { Task } from '../../../api';
import type { useTaskAction } from '../../../api/queries';
import { RunCard } from './RunCard';

type Action = ReturnType<typeof useTaskAction>;

export function Runs({ task, action }: { task: Task; action: Action }) {
  if (task.runs.length === 0) {
    return <p className="muted">No runs yet. Once the plan is approved it runs on its schedule, or choose Run now.</p>;
  }
  const newestFirst = [...task.runs].reverse();
  return (
    <ul className="task-runs" aria-label="Runs">
      {newestFirst.map((run) => (
        <RunCard key={run.run_id} taskId={task.task_id} run={run} action={action} />
      ))}
    </ul>
  );
}
