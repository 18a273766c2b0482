// Where keys are kept. On a computer with no keychain, the first save that fails offers one
// choice in plain words (`KeyStoreChoice`): install a keychain (the command, then Check again) or
// keep keys in a private file on this computer; once chosen, the save is tried again. Settings >
// Models shows the store in use (`KeyStoreCard`) and moves the keys to a keychain that appeared.
import { useId, useState, type ReactNode } from 'react';
import type { ApiError } from '../../../api/errors';
import type { StoreStatus } from '../../../api';
import { CopyButton } from '../../../components/CopyButton';
import { ErrorNotice, Loading } from '../../../components/Page';
import { useChooseSecretsStore, useSecretsStore } from './queries';
import './models.css';

/** True when keys can't be saved because there is no keychain and no file was chosen. */
export function needsChoice(status: StoreStatus | undefined): boolean {
  return status !== undefined && status.store === 'keychain' && status.keychain !== 'available';
}

/**
 * Shows the choice in place of `children` (the save's own error) when a save failed because this
 * computer has no keychain; `onReady` saves again once a keychain answers or the file is chosen.
 */
export function KeyStoreChoice({
  error,
  onReady,
  children,
}: {
  error: ApiError | null | undefined;
  onReady: () => void;
  children?: ReactNode;
}) {
  // A missing keychain is a 500 whose sentence says so; the store itself is the judge.
  const failed = Boolean(error && error.status >= 500);
  const store = useSecretsStore(failed);
  const titleId = useId();
  if (!failed || !store.data || !needsChoice(store.data)) return <>{children}</>;
  return (
    <div className="notice notice-warn key-store-choice" role="group" aria-labelledby={titleId} data-testid="key-store-choice">
      <h3 id={titleId}>Where should Sentient keep your keys?</h3>
      <NoKeychainOptions status={store.data} onReady={onReady} />
    </div>
  );
}

/** The two ways forward where the keychain doesn't work: install (or unlock) it, or the private file. */
function NoKeychainOptions({ status, onReady }: { status: StoreStatus; onReady?: () => void }) {
  const store = useSecretsStore(false);
  const choose = useChooseSecretsStore();
  const [checked, setChecked] = useState(false);
  const locked = status.keychain === 'locked';

  const checkAgain = async () => {
    setChecked(false);
    const next = await store.refetch();
    setChecked(true);
    if (next.data && !needsChoice(next.data)) onReady?.();
  };

  // Awaited rather than `mutate`'s onSuccess: the new store hides this choice (and unmounts it)
  // before that callback would run, and the save that was waiting must still be retried.
  const chooseFile = async () => {
    try {
      await choose.mutateAsync('file');
    } catch {
      return; // shown below
    }
    onReady?.();
  };

  return (
    <>
      {locked ? (
        <p>
          This computer's keychain is locked, so Sentient can't keep keys in it. Unlock it (log in again, or open your
          passwords and keys app), then choose Check again.
        </p>
      ) : (
        <p>This computer has no keychain (its safe place for passwords), so Sentient can't keep your key there yet.</p>
      )}
      <div className="key-store-options">
        <section className="key-store-option" aria-label={locked ? 'Unlock the keychain' : 'Install a keychain'}>
          <h4>{locked ? 'Unlock the keychain' : 'Install a keychain'}</h4>
          {status.install_command ? (
            <>
              <p className="field-help">Run this in a terminal, then choose Check again:</p>
              <div className="key-store-command">
                <code data-testid="install-command">{status.install_command}</code>
                <CopyButton value={status.install_command} label="Copy the command" />
              </div>
            </>
          ) : null}
          <button type="button" className="btn btn-quiet" onClick={() => void checkAgain()} disabled={store.isFetching} aria-busy={store.isFetching}>
            {store.isFetching ? 'Checking…' : 'Check again'}
          </button>
          {checked && !store.isFetching && store.data && needsChoice(store.data) ? (
            <p className="field-help" role="status">
              {locked ? 'The keychain is still locked.' : 'Still no keychain on this computer.'}
            </p>
          ) : null}
        </section>
        {status.file_possible ? (
          <section className="key-store-option" aria-label="Keep keys in a private file on this computer">
            <h4>Keep keys in a private file on this computer</h4>
            <p className="field-help">
              The file is encrypted and locked to this computer, and only your account can open it. You can move the keys
              to a keychain later in Settings &gt; Models.
            </p>
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => void chooseFile()}
              disabled={choose.isPending}
            >
              {choose.isPending ? 'Setting it up…' : 'Keep keys in a private file'}
            </button>
          </section>
        ) : null}
      </div>
      <ErrorNotice error={choose.error} prefix="Couldn't set up the private file." />
    </>
  );
}

/** Settings > Models: where keys are kept, and the move to a keychain once one works. */
export function KeyStoreCard() {
  const store = useSecretsStore();
  const move = useChooseSecretsStore();
  const status = store.data;
  return (
    <div className="card settings-section" data-testid="key-store-card">
      <h2>Where keys are kept</h2>
      {store.isPending ? <Loading label="Checking where keys are kept…" /> : null}
      <ErrorNotice error={store.error} prefix="Couldn't check where keys are kept." onRetry={() => void store.refetch()} />
      {status?.store === 'keychain' && status.keychain === 'available' ? (
        <p data-testid="key-store">In this computer's keychain.</p>
      ) : null}
      {status && needsChoice(status) ? <NoKeychainOptions status={status} /> : null}
      {status?.store === 'file' ? (
        <>
          <p data-testid="key-store">
            In a private file on this computer, encrypted and locked to it; only your account can open it.
          </p>
          {status.file ? <p className="field-help">{status.file}</p> : null}
          {status.can_move_to_keychain ? (
            <>
              <p>This computer has a keychain now. Moving the keys there keeps them in the computer's own safe place.</p>
              <button type="button" className="btn btn-primary" onClick={() => move.mutate('keychain')} disabled={move.isPending}>
                {move.isPending ? 'Moving…' : 'Move keys to the keychain'}
              </button>
            </>
          ) : (
            <>
              <p className="field-help">Once a keychain is installed, the keys can move there.</p>
              <button type="button" className="btn btn-quiet" onClick={() => void store.refetch()} disabled={store.isFetching}>
                {store.isFetching ? 'Checking…' : 'Check for a keychain'}
              </button>
            </>
          )}
        </>
      ) : null}
      {move.isSuccess ? (
        <p className="muted" role="status">
          {move.data.moved === 1 ? 'Moved 1 key to the keychain.' : `Moved ${move.data.moved} keys to the keychain.`}
        </p>
      ) : null}
      <ErrorNotice error={move.error} prefix="Couldn't move the keys." />
    </div>
  );
}
