// What the settings feature offers the rest of the window: its page (loaded the first time it is opened); the webhooks (the task
// editor lists them for triggers); and the model widgets and hooks onboarding's model step
// reuses, so both set up a model the same way.
import { lazyNamed } from '../../components/LazyPart';
export { FixButton } from './models/FixButton';
export { OtherComputer } from './models/LocalAddress';
export { KeyStoreChoice } from './models/KeyStore';
export { PullProgressView } from './models/OllamaCard';
export { PullProvider, usePull } from './models/pull';
export {
  useCheckup,
  useHardware,
  useLocalModels,
  useModelProviders,
  useSetRoles,
  useSetSecret,
  useSwitchPreset,
  useTestModel,
  type CheckupState,
} from './models/queries';
export { withoutLatest } from './models/roles';
export { useHooks } from './queries';
export const SettingsPage = lazyNamed(() => import('./SettingsPage'), 'SettingsPage');
