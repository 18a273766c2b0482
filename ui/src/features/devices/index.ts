// What the devices feature offers the rest of the window: its page, and the LAN listener's state
// (Settings > Devices shows it too).
export { DevicesPage } from './DevicesPage';
export { useLanStatus } from './queries';
