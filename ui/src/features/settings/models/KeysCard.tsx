// Keys for cloud models: one card per cloud provider saying whether its key is set, a field to
// save one (into this computer's keychain, or the private key file where there is none) and
// Remove. A key goes in and never comes back out: the engine never sends it, and the field is
// emptied once it is saved. A save that finds no keychain offers the choice (KeyStore.tsx).
//
// With `chosenOnly` (the top of Settings > Models) it shows only the providers the person has
// chosen: one a job uses or one with a key, plus any added with "Add another provider". A fix
// elsewhere ("Add a key") reveals and focuses a provider's field through `revealKeyField`. A saved
// Anthropic, OpenRouter or Nous key has Check key: one request that spends nothing.
import { useEffect, useId, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ConnectStart, ConnectStatus, KeyCheck, ProviderView, SecretInfo } from '../../../api';
import { openExternal } from '../../../components/openExternal';
import { useApi } from '../../../api/context';
import type { ApiError } from '../../../api/errors';
import { queryKeys, rejectAsApiError } from '../../../api/queries';
import { useDeleteSecret, useModelProviders, useRoles, useSecrets, useSetSecret } from './queries';
import { ErrorNotice, Loading } from '../../../components/Page';
import { REVEAL_KEY_EVENT, keyFieldId } from './keys';
import { KeyStoreChoice } from './KeyStore';
import { providerId } from './summary';

export { revealKeyField } from './keys';

const ADD_PROVIDER_ID = 'add-provider-select';

function focusSoon(id: string) {
  // After the render that shows it.
  requestAnimationFrame(() => {
    const el = document.getElementById(id);
    el?.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
    el?.focus();
  });
}

export function KeysCard({ chosenOnly = false }: { chosenOnly?: boolean }) {
  const providers = useModelProviders();
  const secrets = useSecrets();
  const roles = useRoles();
  const [added, setAdded] = useState<string[]>([]);
  const cloud = (providers.data ?? []).filter((p) => p.kind === 'cloud');

  const isSet = (p: ProviderView) => {
    const s = secrets.data?.find((x) => x.name === p.id);
    return s ? s.set : p.key_set;
  };
  const used = new Set(Object.values(roles.data ?? {}).filter((m): m is string => Boolean(m)).map(providerId));
  const shown = chosenOnly ? cloud.filter((p) => used.has(p.id) || isSet(p) || added.includes(p.id)) : cloud;
  const rest = cloud.filter((p) => !shown.includes(p));

  const addedRef = useRef(added);
  addedRef.current = added;
  useEffect(() => {
    const onReveal = (e: Event) => {
      const provider = (e as CustomEvent<string | null>).detail;
      if (!provider) {
        focusSoon(ADD_PROVIDER_ID);
        return;
      }
      if (!addedRef.current.includes(provider)) setAdded((a) => [...a, provider]);
      focusSoon(keyFieldId(provider));
    };
    window.addEventListener(REVEAL_KEY_EVENT, onReveal);
    return () => window.removeEventListener(REVEAL_KEY_EVENT, onReveal);
  }, []);

  return (
    <div className="card settings-section" data-testid="keys-card">
      <h2>{chosenOnly ? 'Cloud providers' : 'Keys for cloud models'}</h2>
      <p className="muted">
        Cloud models run on the provider's computers and need a key from them. Keys are kept safe on this computer and never
        shown again.
      </p>
      {providers.isPending ? <Loading label="Loading providers…" /> : null}
      <ErrorNotice error={providers.error} prefix="Couldn't load the providers." onRetry={() => void providers.refetch()} />
      <ErrorNotice
        error={providers.data ? secrets.error : null}
        prefix="Couldn't check which keys are saved."
        onRetry={() => void secrets.refetch()}
      />
      {providers.data && cloud.length === 0 ? <p className="muted">No cloud providers are available.</p> : null}
      {providers.data && cloud.length > 0 && shown.length === 0 ? (
        <p className="muted" data-testid="no-provider">
          You haven't added a cloud provider. Everything can run on this computer; add one to use a cloud model.
        </p>
      ) : null}
      {shown.length > 0 ? (
        <ul className="key-list">
          {shown.map((p) => (
            <ProviderKey key={p.id} provider={p} secret={secrets.data?.find((s) => s.name === p.id)} />
          ))}
        </ul>
      ) : null}
      {chosenOnly && rest.length > 0 ? (
        <AddProvider
          rest={rest}
          onAdd={(id) => {
            setAdded((a) => (a.includes(id) ? a : [...a, id]));
            focusSoon(keyFieldId(id));
          }}
        />
      ) : null}
    </div>
  );
}

function AddProvider({ rest, onAdd }: { rest: ProviderView[]; onAdd: (id: string) => void }) {
  const [pick, setPick] = useState(rest[0]?.id ?? '');
  const value = rest.some((p) => p.id === pick) ? pick : (rest[0]?.id ?? '');
  return (
    <div className="download add-provider" data-testid="add-provider">
      <div className="field download-field">
        <label className="field-label" htmlFor={ADD_PROVIDER_ID}>
          Add another provider
        </label>
        <select id={ADD_PROVIDER_ID} className="select" value={value} onChange={(e) => setPick(e.target.value)}>
          {rest.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </select>
      </div>
      <button type="button" className="btn btn-quiet" onClick={() => value && onAdd(value)} disabled={!value}>
        Add
      </button>
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

/** Providers whose saved key can be checked without spending anything. */
const CHECKABLE = ['anthropic', 'openrouter', 'nous'];

/** Check: one free request with the saved key, and what it said. */
function KeyCheckButton({ provider }: { provider: ProviderView }) {
  const api = useApi();
  const check = useMutation<KeyCheck, ApiError, void>({
    mutationFn: () => api.checkProviderKey(provider.id).catch(rejectAsApiError),
  });
  const answer = check.data;
  return (
    <div className="key-check" data-testid={`key-check-${provider.id}`}>
      <button type="button" className="btn btn-quiet" onClick={() => check.mutate()} disabled={check.isPending}>
        {check.isPending ? 'Checking…' : 'Check key'}
      </button>
      {answer ? (
        <p role="status" className={answer.ok ? 'muted' : 'tool-error'}>
          {answer.ok ? answer.detail : answer.error}
        </p>
      ) : null}
      <ErrorNotice error={check.error} prefix="Couldn't check the key." />
    </div>
  );
}

const SIGN_IN_SAYS: Record<string, string> = {
  waiting: 'Waiting for you to finish in the browser…',
  exchanging: 'Getting your key from OpenRouter…',
  connected: 'Connected. Your OpenRouter key is saved.',
};

/** Connect OpenRouter by signing in: the sign-in page opens, and its progress shows here. */
function OpenRouterSignIn() {
  const api = useApi();
  const qc = useQueryClient();
  const start = useMutation<ConnectStart, ApiError, void>({
    mutationFn: () => api.connectOpenrouter().catch(rejectAsApiError),
    onSuccess: (started) => openExternal(started.auth_url),
  });
  const state = start.data?.state ?? null;
  const progress = useQuery<ConnectStatus, ApiError>({
    queryKey: ['openrouter-sign-in', state],
    queryFn: () => api.openrouterSignInStatus(state ?? '').catch(rejectAsApiError),
    enabled: state !== null,
    refetchInterval: (query) => (['connected', 'failed'].includes(query.state.data?.status ?? '') ? false : 1500),
  });
  const status = progress.data;
  useEffect(() => {
    if (status?.status === 'connected') void qc.invalidateQueries({ queryKey: queryKeys.secrets });
  }, [status?.status, qc]);
  return (
    <div className="key-sign-in" data-testid="openrouter-sign-in">
      <button type="button" className="btn" onClick={() => start.mutate()} disabled={start.isPending}>
        {start.isPending ? 'Opening…' : 'Connect by signing in to OpenRouter'}
      </button>
      {start.data && status?.status !== 'connected' ? (
        <p className="field-help">
          If no page opened,{' '}
          <a href={start.data.auth_url} target="_blank" rel="noreferrer noopener">
            open the OpenRouter sign-in
          </a>
          .
        </p>
      ) : null}
      {status ? (
        <p role="status" className={status.status === 'failed' ? 'tool-error' : 'muted'}>
          {status.status === 'failed' ? status.error : SIGN_IN_SAYS[status.status]}
        </p>
      ) : null}
      <ErrorNotice error={start.error} prefix="Couldn't start the sign-in." />
    </div>
  );
}

function ProviderKey({ provider, secret }: { provider: ProviderView; secret: SecretInfo | undefined }) {
  const [value, setValue] = useState('');
  const save = useSetSecret();
  const remove = useDeleteSecret();
  const inputId = keyFieldId(provider.id);
  const headingId = useId();
  const set = secret ? secret.set : provider.key_set;
  // Only a saved key can be removed here; an environment variable is the person's own.
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
      {provider.id === 'openrouter' && !set ? <OpenRouterSignIn /> : null}
      {set && CHECKABLE.includes(provider.id) ? <KeyCheckButton provider={provider} /> : null}
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
      <KeyStoreChoice error={save.error} onReady={onSave}>
        <ErrorNotice error={save.error} prefix="Couldn't save the key." />
      </KeyStoreChoice>
      <ErrorNotice error={remove.error} prefix="Couldn't remove the key." />
    </li>
  );
}
