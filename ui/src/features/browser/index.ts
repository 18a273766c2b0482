// What the browser feature offers the rest of the window: the needs-you card a browser tool shows
// when a page waits for the person (with its live view), and the browser's status and Open browser
// (Settings > Browser uses them too).
export { NeedsYouCard } from './NeedsYouCard';
export { useBrowserStatus, useOpenBrowser } from './queries';
