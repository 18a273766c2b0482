// The Tasks page: a box to describe a new task on top, the tasks grouped by what they need on
// the left, and the open task on the right.
import { useEffect, useState } from 'react';
import { useDeleteTask } from './queries';
import { ErrorNotice, Page } from '../../components/Page';
import { NewTaskForm } from './NewTaskForm';
import { NoTaskOpen } from './NoTaskOpen';
import { TaskDetail } from './TaskDetail';
import { TaskList } from './TaskList';
import './tasks.css';

/** A task (and run) named in the address: `#/tasks/<task id>` or `#/tasks/<task id>/runs/<run id>`. */
export function taskFromHash(hash: string): { taskId: string; runId: string | null } | null {
  const parts = hash.replace(/^#\/?/, '').split(/[?&]/)[0].split('/');
  if (parts[0] !== 'tasks' || !parts[1]) return null;
  return { taskId: decodeURIComponent(parts[1]), runId: parts[2] === 'runs' && parts[3] ? decodeURIComponent(parts[3]) : null };
}

export function TasksPage() {
  const [linked, setLinked] = useState(() => taskFromHash(window.location.hash));
  const [openId, setOpenId] = useState<string | null>(linked?.taskId ?? null);
  const drop = useDeleteTask();
  // Try again on a task whose first planning failed makes it afresh: open the new one, and let
  // the failed one go (it never ran and holds nothing).
  const replaced = (oldId: string, copyId: string) => {
    setOpenId(copyId);
    drop.mutate(oldId);
  };
  useEffect(() => {
    const onChange = () => {
      const next = taskFromHash(window.location.hash);
      if (next) {
        setLinked(next);
        setOpenId(next.taskId);
      }
    };
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return (
    <Page title="Tasks" intro="Work you hand to Sentient, from a one-off errand to something that repeats.">
      <NewTaskForm onCreated={setOpenId} />
      <ErrorNotice error={drop.error} prefix="Couldn't remove the task whose planning failed." />
      <div className="tasks-layout">
        <TaskList openId={openId} onOpen={setOpenId} />
        {openId ? (
          <TaskDetail
            key={`${openId}/${linked?.taskId === openId ? (linked.runId ?? '') : ''}`}
            taskId={openId}
            runId={linked?.taskId === openId ? linked.runId : null}
            onClosed={() => setOpenId(null)}
            onReplaced={replaced}
          />
        ) : (
          <NoTaskOpen />
        )}
      </div>
    </Page>
  );
}
