// One task: its name and state, what you can do with it, any question a run is waiting on, and
// two tabs: the overview (plan, schedule, settings, chat) and its runs.
import { useState } from 'react';
import { useTask, useTaskAction } from './queries';
import { ErrorNotice, Loading } from '../../components/Page';
import { TaskActions } from './TaskActions';
import { Overview } from './detail/Overview';
import { QuestionCard } from './detail/QuestionCard';
import { Runs } from './detail/Runs';
import { STATUS_WORDS } from './words';

type Tab = 'overview' | 'runs';

export function TaskDetail({
  taskId,
  runId = null,
  onClosed,
  onReplaced,
}: {
  taskId: string;
  runId?: string | null;
  onClosed: () => void;
  /** The task was made afresh as `copyId` (Try again after its planning failed). */
  onReplaced?: (oldId: string, copyId: string) => void;
}) {
  const query = useTask(taskId);
  const action = useTaskAction(taskId);
  const [tab, setTab] = useState<Tab>(runId ? 'runs' : 'overview');

  if (query.isPending) return <Loading label="Loading the task…" />;
  if (query.error) return <ErrorNotice error={query.error} prefix="Couldn't load this task." onRetry={() => void query.refetch()} />;
  const task = query.data;
  const waiting = task.runs.filter((r) => r.status === 'waiting_for_user' && r.pending_question);

  return (
    <article className="card task-detail" aria-labelledby="task-title" data-testid="task-detail">
      <header className="task-detail-header">
        <div>
          <h2 id="task-title">{task.name}</h2>
          <p className={`task-status task-status-${task.status}`} data-testid="task-status">
            {task.enabled ? STATUS_WORDS[task.status] : `Paused · ${STATUS_WORDS[task.status]}`}
          </p>
        </div>
        <TaskActions task={task} action={action} onDeleted={onClosed} onRan={() => setTab('runs')} />
      </header>
      <ErrorNotice error={action.error} />
      {waiting.map((run) => (
        <QuestionCard key={run.run_id} run={run} action={action} />
      ))}
      <div className="task-tabs" role="tablist" aria-label="Task views">
        <button type="button" role="tab" className="task-tab" aria-selected={tab === 'overview'} onClick={() => setTab('overview')}>
          Overview
        </button>
        <button type="button" role="tab" className="task-tab" aria-selected={tab === 'runs'} onClick={() => setTab('runs')}>
          Runs ({task.runs.length})
        </button>
      </div>
      <div role="tabpanel">{tab === 'overview' ? <Overview task={task} action={action} onReplaced={onReplaced} /> : <Runs task={task} action={action} highlight={runId} />}</div>
    </article>
  );
}
