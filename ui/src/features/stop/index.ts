// What the stop feature offers the rest of the window: the title bar's button and the banner.
export { StopBanner } from './StopBanner';
export { StopButton } from './StopButton';
