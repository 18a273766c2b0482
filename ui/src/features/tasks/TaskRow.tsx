// One task in the list: its name, where it is, and for scheduled ones when it runs next.
import type { Task } from '../../api';
import { groupOf, localTime, scheduleWords, STATUS_WORDS } from './words';

export function TaskRow({ task, open, onOpen }: { task: Task; open: boolean; onOpen: () => void }) {
  const scheduled = groupOf(task) === 'scheduled';
  return (
    <li className={`task-row${open ? ' open' : ''}`} data-testid="task-row">
      <button type="button" className="task-row-open" onClick={onOpen} aria-current={open ? 'true' : undefined}>
        <strong className="task-row-name">{task.name}</strong>
        <span className={`task-status task-status-${task.status}`}>{task.enabled ? STATUS_WORDS[task.status] : 'Paused'}</span>
        {scheduled ? (
          <>
            <span className="task-row-meta">{scheduleWords(task.schedule)}</span>
            {task.next_execution_at ? <span className="task-row-meta">Next run: {localTime(task.next_execution_at)}</span> : null}
          </>
        ) : null}
      </button>
    </li>
  );
}
