// What the notifications feature offers the rest of the window: its page (loaded the first time it is opened) and the unread count.
import { lazyNamed } from '../../components/LazyPart';
export const NotificationsPage = lazyNamed(() => import('./NotificationsPage'), 'NotificationsPage');
export { useUnreadCount } from './queries';
