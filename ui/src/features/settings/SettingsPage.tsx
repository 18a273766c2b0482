// Settings, in tabs. General: who you are, how the window looks, and which Sentient this is.
// Models: which model does each job, models on this computer, and keys (models/). Webhooks
// (webhooks/). Devices: which devices may connect and the network listener (devices/). Forms for
// the rest of the settings will be generated from the engine's config schema.
import type { Bootstrap } from '../../api';
import { usePatchConfig } from '../../api/queries';
import { ErrorNotice, Page } from '../../components/Page';
import { DevicesSettings } from './devices/DevicesSettings';
import { ModelsSettings } from './models/ModelsSettings';
import { WebhooksSettings } from './webhooks/WebhooksSettings';
import { AboutYou } from './AboutYou';
import { SETTINGS_TABS, useSettingsTab } from './tabs';
import './settings.css';

const THEMES = [
  { id: 'dark', label: 'Dark' },
  { id: 'light', label: 'Light' },
  { id: 'system', label: 'Same as this computer' },
] as const;

export function SettingsPage({ bootstrap }: { bootstrap: Bootstrap }) {
  const tab = useSettingsTab();
  return (
    <Page title="Settings" intro="How Sentient works for you. More settings will come here: privacy and apps.">
      <nav className="settings-tabs" aria-label="Settings">
        {SETTINGS_TABS.map((t) => (
          <a key={t.id} className="settings-tab" href={t.href} aria-current={tab === t.id ? 'page' : undefined}>
            {t.label}
          </a>
        ))}
      </nav>
      {tab === 'models' ? (
        <ModelsSettings />
      ) : tab === 'webhooks' ? (
        <WebhooksSettings />
      ) : tab === 'devices' ? (
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
