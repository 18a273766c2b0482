// Settings, in tabs. General: who you are, how the window looks, and which Sentient this is.
// Models: what Sentient thinks with, in two levels (models/). Chats, Tasks, and Approvals &
// safety: forms generated from the engine's settings schema (SectionForms.tsx, form/). Browser:
// its settings and profiles (browser/). Webhooks (webhooks/). Devices: which devices may connect and the network listener (devices/). A tab
// made from a settings section shows only when the schema has that section and doesn't hide it.
import type { Bootstrap } from '../../api';
import { usePatchConfig } from '../../api/shared';
import { useConfigSchema } from './queries';
import { ErrorNotice, Page } from '../../components/Page';
import { DevicesSettings } from './devices/DevicesSettings';
import { sectionShown } from './form/schema';
import { ModelsSettings } from './models/ModelsSettings';
import { WebhooksSettings } from './webhooks/WebhooksSettings';
import { BrowserSettings } from './browser/BrowserSettings';
import { AboutYou } from './AboutYou';
import { SchemaForm } from './form/SchemaForm';
import { ChatSettings, SafetySettings, ScriptSettings, TaskSettings } from './SectionForms';
import { TerminalSettings } from './terminal/TerminalSettings';
import { SETTINGS_TABS, useSettingsTab } from './tabs';
import './settings.css';

const THEMES = [
  { id: 'dark', label: 'Dark' },
  { id: 'light', label: 'Light' },
  { id: 'system', label: 'Same as this computer' },
] as const;

export function SettingsPage({ bootstrap }: { bootstrap: Bootstrap }) {
  const tab = useSettingsTab();
  const schema = useConfigSchema();
  const features = bootstrap.features as unknown as Record<string, boolean> | undefined;
  // Until the schema is read every tab shows; then a tab whose section is hidden goes away.
  const tabs = SETTINGS_TABS.filter((t) => !('section' in t) || !schema.data || sectionShown(schema.data, t.section, features));
  const shown = tabs.some((t) => t.id === tab) ? tab : 'general';
  return (
    <Page title="Settings" intro="How Sentient works for you.">
      <nav className="settings-tabs" aria-label="Settings">
        {tabs.map((t) => (
          <a key={t.id} className="settings-tab" href={t.href} aria-current={shown === t.id ? 'page' : undefined}>
            {t.label}
          </a>
        ))}
      </nav>
      {shown === 'models' ? (
        <ModelsSettings />
      ) : shown === 'chats' ? (
        <ChatSettings />
      ) : shown === 'tasks' ? (
        <TaskSettings />
      ) : shown === 'safety' ? (
        <SafetySettings />
      ) : shown === 'scripts' ? (
        <ScriptSettings />
      ) : shown === 'terminal' ? (
        <TerminalSettings />
      ) : shown === 'browser' ? (
        <BrowserSettings />
      ) : shown === 'webhooks' ? (
        <WebhooksSettings />
      ) : shown === 'devices' ? (
        <DevicesSettings />
      ) : (
        <GeneralSettings bootstrap={bootstrap} />
      )}
    </Page>
  );
}

function GeneralSettings({ bootstrap }: { bootstrap: Bootstrap }) {
  const { assistant, ui, version, home } = bootstrap;
  const patch = usePatchConfig();
  const theme: string = ui.theme;

  return (
    <>
      <AboutYou assistant={assistant} />
      <SchemaForm
        section={['assistant']}
        fields={[
          { key: 'persona', title: 'How your assistant talks' },
          { key: 'custom_persona', title: 'In your own words (when the style is custom)' },
        ]}
        title="Personality"
        intro="The style onboarding left at its default; change it whenever you like."
        testId="persona-form"
      />

      <div className="card settings-section">
        <h2>Appearance</h2>
        <fieldset className="choice" disabled={patch.isPending}>
          <legend>Theme</legend>
          <div className="segmented">
            {THEMES.map((t) => (
              <label key={t.id} className={theme === t.id ? 'segment selected' : 'segment'}>
                <input
                  type="radio"
                  name="theme"
                  value={t.id}
                  checked={theme === t.id}
                  onChange={() => patch.mutate({ ui: { theme: t.id } })}
                />
                {t.label}
              </label>
            ))}
          </div>
        </fieldset>
        {patch.isPending ? <p className="muted">Saving…</p> : null}
        <ErrorNotice error={patch.error} prefix="Couldn't save that." />
      </div>

      <div className="card settings-section">
        <h2>About Sentient</h2>
        <dl className="facts">
          <dt>Version</dt>
          <dd>{version}</dd>
          <dt>Data folder</dt>
          <dd>
            <code>{home}</code>
          </dd>
        </dl>
      </div>
    </>
  );
}
