import { EmptyState, Page } from '../../components/Page';
import { TasksIcon } from '../../components/icons';

export function TasksPage() {
  return (
    <Page title="Tasks" intro="Work you hand to Sentient, from a one-off errand to something that repeats.">
      <EmptyState icon={<TasksIcon size={28} />} title="No tasks yet">
        <p>
          Tasks you give Sentient will show up here: things to do now, on a schedule, or when something happens.
        </p>
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
    </Page>
  );
}
