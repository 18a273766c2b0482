// What the tasks feature offers the rest of the window: its page (loaded the first time it is opened).
import { lazyNamed } from '../../components/LazyPart';
export const TasksPage = lazyNamed(() => import('./TasksPage'), 'TasksPage');
