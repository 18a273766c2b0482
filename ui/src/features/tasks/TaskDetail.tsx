// One task: its name and state, what you can do with it, any question a run is waiting on, and
// two tabs: the overview (plan, schedule, settings, chat) and its runs.
import { useState } from 'react';
import { useModelBusy, useStopped, useTask, useTaskAction } from './queries';
import { ErrorNotice, Loading } from '../../components/Page';
import { TaskActions } from './TaskActions';
import { Overview } from './detail/Overview';
import { QuestionCard } from './detail/QuestionCard';
import { Runs } from './detail/Runs';
import { modelWaitWords, PAUSED_BY_STOP, STATUS_WORDS, taskStateWords } from './words';

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
  const stopped = useStopped();
  const busy = useModelBusy(query.data?.status === 'processing');

  if (query.isPending) return <Loading label="Loading the task…" />;
  if (query.error?.status === 404) return <TaskGone onClose={onClosed} />;
  if (query.error) return <ErrorNotice error={query.error} prefix="Couldn't load this task." onRetry={() => void query.refetch()} />;
  const task = query.data;
  const waitingForModel = task.status === 'processing' ? modelWaitWords(busy) : null;
  let state = taskStateWords(task, stopped);
  if (!task.enabled) state = `Paused · ${STATUS_WORDS[task.status]}`;
  else if (waitingForModel) state = waitingForModel;
  const waiting = task.runs.filter((r) => r.status === 'waiting_for_user' && r.pending_question);

  return (
    <article className="card task-detail" aria-labelledby="task-title" data-testid="task-detail">
      <header className="task-detail-header">
        <div>
          <h2 id="task-title">{task.name}</h2>
          <p className={`task-status task-status-${task.status}`} data-testid="task-status">
            {state}
          </p>
          {state === PAUSED_BY_STOP ? <p className="muted">It runs again on its schedule once you choose Resume.</p> : null}
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

/** A task that was deleted (from another window, or a link in an old notification). */
function TaskGone({ onClose }: { onClose: () => void }) {
  return (
    <div className="card notice" role="status" data-testid="task-gone">
      <p>This task was deleted, so there is nothing more to see or do here.</p>
      <button type="button" className="btn" onClick={onClose}>
        Close
      </button>
    </div>
  );
}
