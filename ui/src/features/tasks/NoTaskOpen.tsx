// What the right side shows while no task is open: with no tasks at all, what tasks are for and
// a few examples; otherwise a hint to pick one.
import { useTasks } from './queries';
import { EmptyState } from '../../components/Page';
import { TasksIcon } from '../../components/icons';

export function NoTaskOpen() {
  const tasks = useTasks();
  if (tasks.data && tasks.data.length > 0) {
    return (
      <div className="card tasks-placeholder">
        <p className="muted">Pick a task to see its plan, its runs and what it needs from you.</p>
      </div>
    );
  }
  return (
    <EmptyState icon={<TasksIcon size={28} />} title="What tasks are for">
      <p>Tasks you give Sentient will show up here: things to do now, on a schedule, or when something happens.</p>
      <ul className="examples" aria-label="Examples">
        <li>
          <span className="example-kind">Now</span>
          Find three flights to Lisbon under $300 next month.
        </li>
        <li>
          <span className="example-kind">On a schedule</span>
          Every Monday at 9, sum up last week's unread email.
        </li>
        <li>
          <span className="example-kind">When something happens</span>
          When an invoice arrives, save it to my Invoices folder.
        </li>
      </ul>
    </EmptyState>
  );
}
