// What the onboarding feature offers the rest of the window: the first launch's form, and the
// model step with the bar that follows it into the app. The form and the step are loaded when
// shown: a set-up window never holds their code.
import { lazyNamed } from '../../components/LazyPart';
export { ModelBar } from './ModelBar';
export { closeModelSetup, modelAnswered, useModelSetup } from './modelSetup';
export const ModelStep = lazyNamed(() => import('./ModelStep'), 'ModelStep');
export const Onboarding = lazyNamed(() => import('./Onboarding'), 'Onboarding');
