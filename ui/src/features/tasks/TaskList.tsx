// Every task, grouped by what it needs: you first, then what runs, what is scheduled, the rest.
import { useTasks } from './queries';
import { ErrorNotice, Loading } from '../../components/Page';
import { TaskRow } from './TaskRow';
import { GROUPS, groupOf } from './words';

export function TaskList({ openId, onOpen }: { openId: string | null; onOpen: (id: string) => void }) {
  const tasks = useTasks();
  if (tasks.isPending) return <Loading label="Loading your tasks…" />;
  if (tasks.error) return <ErrorNotice error={tasks.error} prefix="Couldn't load your tasks." onRetry={() => void tasks.refetch()} />;
  if (tasks.data.length === 0) {
    return (
      <aside className="task-list" aria-label="Tasks">
        <p className="muted">No tasks yet — describe one above.</p>
      </aside>
    );
  }
  return (
    <aside className="task-list" aria-label="Tasks">
      {GROUPS.map((group) => {
        const members = tasks.data.filter((t) => groupOf(t) === group.id);
        if (members.length === 0) return null;
        return (
          <section key={group.id} className="task-group" aria-label={group.title} data-testid={`task-group-${group.id}`}>
            <h2 className="task-group-title">
              {group.title} <span className="muted">({members.length})</span>
            </h2>
            <ul className="task-rows">
              {members.map((t) => (
                <TaskRow key={t.task_id} task={t} open={t.task_id === openId} onOpen={() => onOpen(t.task_id)} />
              ))}
            </ul>
          </section>
        );
      })}
    </aside>
  );
}
