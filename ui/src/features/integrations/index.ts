// What the integrations feature offers the rest of the window: its page.
export { IntegrationsPage } from './IntegrationsPage';
