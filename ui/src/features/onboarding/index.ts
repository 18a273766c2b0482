// What the onboarding feature offers the rest of the window: the first launch's form, and the
// model step with the bar that follows it into the app.
export { ModelBar } from './ModelBar';
export { closeModelSetup, modelAnswered, useModelSetup } from './modelSetup';
export { ModelStep } from './ModelStep';
export { Onboarding } from './Onboarding';
