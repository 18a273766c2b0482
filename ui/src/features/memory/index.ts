// What the memory feature offers the rest of the window: its page (loaded the first time it is opened), and the review inbox (the
// sidebar counts what waits there).
import { lazyNamed } from '../../components/LazyPart';
export const MemoryPage = lazyNamed(() => import('./MemoryPage'), 'MemoryPage');
export { useMemoryReview } from './queries';
