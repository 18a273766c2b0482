// What the task is: its description, any failure, the planner's questions, the plan, a script
// job's script, when it runs, the notes its runs keep for each other, its brief, which model and
// where its results go, and its own chat for changes.
import type { Task } from '../../../api';
import type { useTaskAction } from '../queries';
import { BriefCard } from './BriefCard';
import { Clarifications } from './Clarifications';
import { NotesBetweenRuns } from './NotesBetweenRuns';
import { PlanCard } from './PlanCard';
import { ScheduleEditor } from './ScheduleEditor';
import { ScriptJobCard } from './ScriptJobCard';
import { TaskChat } from './TaskChat';
import { TaskSettings } from './TaskSettings';
import { ErrorActions } from '../../../components/ErrorActions';
import { planningFailed } from '../words';
import { PlanFailed } from './PlanFailed';

type Action = ReturnType<typeof useTaskAction>;

/** While a task is planned again, the failure before belongs to the past (the engine keeps it until it goes live). */
const REPLANNING = ['planning', 'approval_pending', 'clarification_pending'];

export function Overview({
  task,
  action,
  onReplaced,
}: {
  task: Task;
  action: Action;
  onReplaced?: (oldId: string, copyId: string) => void;
}) {
  return (
    <div className="task-overview">
      {task.description ? <p className="task-description">{task.description}</p> : null}
      {task.error && planningFailed(task) ? (
        <PlanFailed task={task} action={action} onReplaced={onReplaced} />
      ) : task.error && !REPLANNING.includes(task.status) ? (
        <div className="notice notice-error" role="alert" data-testid="task-error">
          <p>{task.error}</p>
          <ErrorActions sentence={task.error} />
        </div>
      ) : null}
      {task.status === 'planning' ? (
        <p className="muted" role="status">
          Sentient is working out a plan for this task…
        </p>
      ) : null}
      {task.status === 'clarification_pending' ? <Clarifications task={task} action={action} /> : null}
      <PlanCard task={task} action={action} />
      <ScriptJobCard task={task} action={action} />
      <ScheduleEditor task={task} action={action} />
      <NotesBetweenRuns task={task} />
      <BriefCard task={task} />
      <TaskSettings task={task} action={action} />
      <TaskChat task={task} action={action} />
    </div>
  );
}
