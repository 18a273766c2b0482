import { EmptyState, Page } from '../../components/Page';
import { BellIcon } from '../../components/icons';

export function NotificationsPage({ unread }: { unread: number }) {
  return (
    <Page title="Notifications" intro="What Sentient wants you to know about.">
      <EmptyState icon={<BellIcon size={28} />} title={unread > 0 ? `${unread} unread` : 'Nothing new'}>
        <p>
          Updates from Sentient will show up here: finished tasks, questions it needs you to answer, and reminders.
        </p>
      </EmptyState>
    </Page>
  );
}
