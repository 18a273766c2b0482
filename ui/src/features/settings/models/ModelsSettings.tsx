// Settings > Models in two levels. The top, for everyone: one sentence on what Sentient thinks
// with (and what that model still needs, with its fix), the three setups as cards, and a key
// field for each cloud provider the person has chosen. Everything else sits under "Advanced",
// closed until opened (remembered on this computer, or opened by `?advanced` in the address):
// which model does each job, your own setups, backups, thinking, reading length, the local
// queue, the models on this computer, and the check-up. Everything is read through the query
// cache, which live events keep current (`model.busy`, and `config.updated` for the models and
// secrets sections).
import { useId, useState, type ReactNode } from 'react';
import { useBootstrap } from '../../../api/shared';
import { useLocalModels, useModelProviders, useRoles } from './queries';
import { ErrorNotice, Loading } from '../../../components/Page';
import { FallbacksCard, QueueCard, ReadingLengthCard, ReasoningCard, ReplyLimitsCard } from './AdvancedCards';
import { CheckupCard } from './CheckupCard';
import { KeysCard } from './KeysCard';
import { KeyStoreCard } from './KeyStore';
import { OllamaCard } from './OllamaCard';
import { NeedRow, OwnPresetsCard, PresetsCard } from './PresetsCard';
import { PullProvider } from './pull';
import { RoleSection } from './RoleSection';
import { ROLES } from './roles';
import { inUseSentence, needOf } from './summary';
import './models.css';

export const ADVANCED_KEY = 'sentient.settings.models.advanced';

export function ModelsSettings() {
  return (
    <PullProvider>
      <div className="models-settings" data-testid="models-settings">
        <InUse />
        <PresetsCard />
        <KeysCard chosenOnly />
        <KeyStoreCard />
        <Advanced>
          <RolesCard />
          <OwnPresetsCard />
          <FallbacksCard />
          <ReasoningCard />
          <ReadingLengthCard />
          <QueueCard />
          <ReplyLimitsCard />
          <OllamaCard />
          <CheckupCard />
        </Advanced>
      </div>
    </PullProvider>
  );
}

/** The one sentence on what is in use, and what its main model still needs. */
function InUse() {
  const roles = useRoles();
  const providers = useModelProviders();
  const local = useLocalModels();
  const bootstrap = useBootstrap();
  const assistant = bootstrap.data?.assistant.name || 'Sentient';

  const nothingInstalled = local.data !== undefined && local.data.ollama.models.length === 0 && local.data.lm_studio.models.length === 0;
  const noKeys = providers.data !== undefined && !providers.data.some((p) => p.kind === 'cloud' && p.key_set);
  const need = roles.data?.primary ? needOf(roles.data.primary, providers.data, local.data) : null;

  return (
    <section className="card settings-section in-use" aria-label="Model in use" data-testid="in-use">
      {roles.isPending || providers.isPending ? <Loading label="Loading your models…" /> : null}
      <ErrorNotice error={roles.error} prefix="Couldn't load your models." onRetry={() => void roles.refetch()} />
      <ErrorNotice error={providers.error} prefix="Couldn't load the providers." onRetry={() => void providers.refetch()} />
      {roles.data && providers.data ? (
        <p className="in-use-sentence" data-testid="in-use-sentence">
          {inUseSentence(roles.data, providers.data, assistant, need === null)}
        </p>
      ) : null}
      {nothingInstalled && noKeys ? (
        <div className="notice notice-warn" data-testid="nothing-installed">
          <p>No model is ready yet: pick a setup below and follow its step, or add a key for a cloud provider.</p>
        </div>
      ) : null}
      {need ? (
        <ul className="setup-needs" data-testid="in-use-need">
          <NeedRow need={need} />
        </ul>
      ) : null}
    </section>
  );
}

function initiallyOpen(): boolean {
  try {
    if (/[?&]advanced\b/.test(window.location.hash)) return true;
    return window.localStorage.getItem(ADVANCED_KEY) === 'open';
  } catch {
    return false;
  }
}

/** The disclosure: closed by default; opening or closing it is remembered on this computer. */
function Advanced({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(initiallyOpen);
  const panelId = useId();
  const toggle = () => {
    const next = !open;
    setOpen(next);
    try {
      window.localStorage.setItem(ADVANCED_KEY, next ? 'open' : 'closed');
    } catch {
      // A browser that refuses storage just doesn't remember it.
    }
  };
  return (
    <div className="advanced" data-testid="advanced">
      <button type="button" className="advanced-toggle" aria-expanded={open} aria-controls={panelId} onClick={toggle}>
        <span className="advanced-chevron" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <span className="advanced-title">Advanced</span>
      </button>
      <p className="muted advanced-summary">
        Pick a model for each job, backups, how hard models think, how much they read at once, downloads and the check-up.
      </p>
      {open ? (
        <div id={panelId} className="advanced-panel">
          {children}
        </div>
      ) : null}
    </div>
  );
}

function RolesCard() {
  const roles = useRoles();
  const providers = useModelProviders();
  const local = useLocalModels();

  return (
    <div className="card settings-section" data-testid="roles-card">
      <h2>Which model does each job</h2>
      <p className="muted">
        The main model does most of the work. The other jobs can use a different model, for example a quicker one, or simply use
        the main model.
      </p>
      {roles.isPending || providers.isPending ? <Loading label="Loading your models…" /> : null}
      <ErrorNotice error={roles.error} prefix="Couldn't load your models." onRetry={() => void roles.refetch()} />
      <ErrorNotice error={providers.error} prefix="Couldn't load the providers." onRetry={() => void providers.refetch()} />
      {roles.data && providers.data ? (
        <div className="role-list">
          {ROLES.map((info) => (
            <RoleSection key={info.role} info={info} roles={roles.data} providers={providers.data} local={local.data} />
          ))}
        </div>
      ) : null}
    </div>
  );
}
