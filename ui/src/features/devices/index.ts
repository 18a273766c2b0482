// What the devices feature offers the rest of the window: its page (loaded the first time it is opened), and the LAN listener's state
// (Settings > Devices shows it too).
import { lazyNamed } from '../../components/LazyPart';
export const DevicesPage = lazyNamed(() => import('./DevicesPage'), 'DevicesPage');
export { useLanStatus } from './queries';
