// What the memory feature offers the rest of the window: its page, and the review inbox (the
// sidebar counts what waits there).
export { MemoryPage } from './MemoryPage';
export { useMemoryReview } from './queries';
