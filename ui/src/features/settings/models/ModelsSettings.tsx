// Settings > Models: ready-made setups, which model does each job, the check-up, the models on
// this computer, and keys for cloud models. Everything is read through the query cache, which
// live events keep current (`model.busy`, and `config.updated` for the models and secrets
// sections).
import { useLocalModels, useModelProviders, useRoles } from '../../../api/queries';
import { ErrorNotice, Loading } from '../../../components/Page';
import { CheckupCard } from './CheckupCard';
import { KeysCard } from './KeysCard';
import { OllamaCard } from './OllamaCard';
import { PresetsCard } from './PresetsCard';
import { PullProvider } from './pull';
import { RoleSection } from './RoleSection';
import { ROLES } from './roles';
import './models.css';

export function ModelsSettings() {
  return (
    <PullProvider>
      <div className="models-settings" data-testid="models-settings">
        <PresetsCard />
        <RolesCard />
        <CheckupCard />
        <OllamaCard />
        <KeysCard />
      </div>
    </PullProvider>
  );
}

function RolesCard() {
  const roles = useRoles();
  const providers = useModelProviders();
  const local = useLocalModels();

  const nothingInstalled = local.data !== undefined && local.data.ollama.models.length === 0 && local.data.lm_studio.models.length === 0;
  const noKeys = providers.data !== undefined && !providers.data.some((p) => p.kind === 'cloud' && p.key_set);

  return (
    <div className="card settings-section" data-testid="roles-card">
      <h2>Which model does each job</h2>
      <p className="muted">
        The main model does most of the work. The other jobs can use a different model, for example a quicker one, or simply use
        the main model.
      </p>
      {nothingInstalled && noKeys ? (
        <div className="notice notice-warn" data-testid="nothing-installed">
          <p>No model is ready yet: download one under Models on this computer below, or save a key for a cloud model.</p>
        </div>
      ) : null}
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
