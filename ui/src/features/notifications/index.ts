// What the notifications feature offers the rest of the window: its page and the unread count.
export { NotificationsPage } from './NotificationsPage';
export { useUnreadCount } from './queries';
