// What the tasks feature offers the rest of the window: its page.
export { TasksPage } from './TasksPage';
