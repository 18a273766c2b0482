// The feed, one section per day.
import type { Notification } from '../../api';
import { groupByDay } from './feed';
import { NotificationItem } from './NotificationItem';

export function NotificationFeed({ notifications, now }: { notifications: Notification[]; now?: Date }) {
  return (
    <div className="notification-feed">
      {groupByDay(notifications, now).map((group) => (
        <section key={group.key} className="notification-day" aria-label={group.label} data-testid="notification-day">
          <h2 className="notification-day-title">{group.label}</h2>
          <ul className="notification-list">
            {group.items.map((n) => (
              <NotificationItem key={n.id} notification={n} />
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
