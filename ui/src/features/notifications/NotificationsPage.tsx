// The Notifications page: what Sentient wants you to know, newest day first, live from the
// engine's `notification.*` events; Mark all as read and Clear all (after a confirm).
import { useState } from 'react';
import { useNotificationAction, useNotifications } from './queries';
import { EmptyState, ErrorNotice, Loading, Page } from '../../components/Page';
import { BellIcon } from '../../components/icons';
import { NotificationFeed } from './NotificationFeed';
import './notifications.css';

export const EMPTY_WORDS = 'Nothing new. Sentient will tell you here when a task needs you or finishes.';

export function NotificationsPage() {
  const feed = useNotifications();
  const action = useNotificationAction();
  const [confirming, setConfirming] = useState(false);

  let body;
  if (feed.isPending) body = <Loading label="Loading notifications…" />;
  else if (feed.error) body = <ErrorNotice error={feed.error} prefix="Couldn't load your notifications." onRetry={() => void feed.refetch()} />;
  else if (feed.data.notifications.length === 0)
    body = (
      <EmptyState icon={<BellIcon size={28} />} title="All caught up">
        <p>{EMPTY_WORDS}</p>
      </EmptyState>
    );
  else body = <NotificationFeed notifications={feed.data.notifications} />;

  const list = feed.data?.notifications ?? [];
  const unread = feed.data?.unread ?? 0;
  return (
    <Page title="Notifications" intro="What Sentient wants you to know about: tasks that need you, and how they went.">
      {list.length > 0 ? (
        <div className="notification-toolbar task-actions">
          <span className="muted" data-testid="notification-unread">
            {unread > 0 ? `${unread} unread` : 'All read'}
          </span>
          <button
            type="button"
            className="btn"
            disabled={unread === 0 || action.isPending}
            onClick={() => action.mutate({ kind: 'read-all' })}
          >
            Mark all as read
          </button>
          {confirming ? (
            <span role="group" aria-label="Clear all notifications?" className="task-actions">
              <span>Delete every notification? This can't be undone.</span>
              <button
                type="button"
                className="btn btn-stop"
                disabled={action.isPending}
                onClick={() => action.mutate({ kind: 'delete-all' }, { onSettled: () => setConfirming(false) })}
              >
                Yes, clear all
              </button>
              <button type="button" className="btn btn-quiet" onClick={() => setConfirming(false)}>
                Keep them
              </button>
            </span>
          ) : (
            <button type="button" className="btn btn-quiet" onClick={() => setConfirming(true)}>
              Clear all
            </button>
          )}
        </div>
      ) : null}
      <ErrorNotice error={action.error} />
      {body}
    </Page>
  );
}
