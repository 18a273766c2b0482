// Keys for cloud models: one card per cloud provider saying whether its key is set, a field to
// save one (into this computer's keychain) and Remove. A key goes in and never comes back out:
// the engine never sends it, and the field is emptied once it is saved.
import { useId, useState } from 'react';
import type { ProviderView, SecretInfo } from '../../../api';
import { useDeleteSecret, useModelProviders, useSecrets, useSetSecret } from '../../../api/queries';
import { ErrorNotice, Loading } from '../../../components/Page';
import { keyFieldId } from './FixButton';

export function KeysCard() {
  const providers = useModelProviders();
  const secrets = useSecrets();
  const cloud = (providers.data ?? []).filter((p) => p.kind === 'cloud');

  return (
    <div className="card settings-section" data-testid="keys-card">
      <h2>Keys for cloud models</h2>
      <p className="muted">
        Cloud models run on the provider's computers and need a key from them. Keys are kept in this computer's keychain and
        never shown again.
      </p>
      {providers.isPending ? <Loading label="Loading providers…" /> : null}
      <ErrorNotice error={providers.error} prefix="Couldn't load the providers." onRetry={() => void providers.refetch()} />
      <ErrorNotice
        error={providers.data ? secrets.error : null}
        prefix="Couldn't check which keys are saved."
        onRetry={() => void secrets.refetch()}
      />
      {providers.data && cloud.length === 0 ? <p className="muted">No cloud providers are available.</p> : null}
      {cloud.length > 0 ? (
        <ul className="key-list">
          {cloud.map((p) => (
            <ProviderKey key={p.id} provider={p} secret={secrets.data?.find((s) => s.name === p.id)} />
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function keyState(provider: ProviderView, secret: SecretInfo | undefined): string {
  const set = secret ? secret.set : provider.key_set;
  if (provider.sign_in) return set ? 'Signed in' : 'Not signed in';
  if (!set) return 'No key yet';
  if (secret?.source === 'env') return 'Key set by an environment variable on this computer';
  return 'Key saved';
}

function ProviderKey({ provider, secret }: { provider: ProviderView; secret: SecretInfo | undefined }) {
  const [value, setValue] = useState('');
  const save = useSetSecret();
  const remove = useDeleteSecret();
  const inputId = keyFieldId(provider.id);
  const headingId = useId();
  const set = secret ? secret.set : provider.key_set;
  // Only a key in the keychain can be removed here; an environment variable is the person's own.
  const removable = set && !provider.sign_in && secret?.source !== 'env';
  const busy = save.isPending || remove.isPending;

  const onSave = () => {
    const key = value.trim();
    if (!key || busy) return;
    remove.reset();
    save.mutate({ name: provider.id, value: key }, { onSuccess: () => setValue('') });
  };

  return (
    <li className="key-card" aria-labelledby={headingId} data-testid={`key-${provider.id}`}>
      <div className="key-head">
        <h3 id={headingId}>{provider.label}</h3>
        <span className={set ? 'pill pill-ok' : 'pill'}>{keyState(provider, secret)}</span>
      </div>
      {provider.sign_in ? (
        <p className="muted">{provider.label} is connected by signing in, not with a key.</p>
      ) : (
        <div className="key-controls">
          <div className="field key-field">
            <label className="field-label" htmlFor={inputId}>
              {set ? `Replace the ${provider.label} key` : `${provider.label} key`}
            </label>
            <input
              id={inputId}
              type="password"
              value={value}
              autoComplete="off"
              spellCheck={false}
              placeholder="Paste the key"
              onChange={(e) => {
                setValue(e.target.value);
                save.reset();
              }}
              onKeyDown={(e) => {
                if (e.key === 'Enter') onSave();
              }}
            />
          </div>
          <div className="role-buttons">
            <button type="button" className="btn btn-primary" onClick={onSave} disabled={!value.trim() || busy}>
              {save.isPending ? 'Saving…' : 'Save key'}
            </button>
            {removable ? (
              <button
                type="button"
                className="btn btn-quiet"
                onClick={() => {
                  save.reset();
                  remove.mutate(provider.id);
                }}
                disabled={busy}
              >
                {remove.isPending ? 'Removing…' : 'Remove'}
              </button>
            ) : null}
          </div>
        </div>
      )}
      {provider.docs_url && !set ? (
        <p className="field-help">
          Get a key at{' '}
          <a href={provider.docs_url} target="_blank" rel="noreferrer noopener">
            {provider.docs_url.replace(/^https?:\/\//, '').replace(/\/$/, '')}
          </a>
          .
        </p>
      ) : null}
      {save.isSuccess ? (
        <p className="muted" role="status">
          Saved.
        </p>
      ) : null}
      {remove.isSuccess ? (
        <p className="muted" role="status">
          Removed.
        </p>
      ) : null}
      <ErrorNotice error={save.error} prefix="Couldn't save the key." />
      <ErrorNotice error={remove.error} prefix="Couldn't remove the key." />
    </li>
  );
}
