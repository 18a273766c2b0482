// Every run of the task, newest first; a run opened from a link (a notification) stands out.
import type { Task } from '../../../api';
import type { useTaskAction } from '../queries';
import { taskZone } from '../words';
import { RunCard } from './RunCard';

type Action = ReturnType<typeof useTaskAction>;

export function Runs({ task, action, highlight = null }: { task: Task; action: Action; highlight?: string | null }) {
  if (task.runs.length === 0) {
    if (task.script) {
      return (
        <p className="muted">
          No runs yet. Its checks run without the model and show on the Script card in Overview; a run appears here only when a check hands
          its finding to the assistant.
        </p>
      );
    }
    return <p className="muted">No runs yet. Once the plan is approved it runs on its schedule, or choose Run now.</p>;
  }
  const newestFirst = [...task.runs].reverse();
  return (
    <ul className="task-runs" aria-label="Runs">
      {newestFirst.map((run) => (
        <RunCard key={run.run_id} taskId={task.task_id} timezone={taskZone(task)} run={run} action={action} highlighted={run.run_id === highlight} />
      ))}
    </ul>
  );
}
