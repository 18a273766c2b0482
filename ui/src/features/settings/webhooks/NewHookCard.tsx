// Make a hook: a name, then its address and secret, shown this once, with copy buttons and a
// ready curl line.
import { useState } from 'react';
import type { NewHook } from '../../../api';
import { useCreateHook } from '../queries';
import { ErrorNotice } from '../../../components/Page';
import { CopyButton } from '../../../components/CopyButton';
import { curlLine } from './curl';

export function NewHookCard() {
  const create = useCreateHook();
  const [name, setName] = useState('');
  const [made, setMade] = useState<NewHook | null>(null);
  const trimmed = name.trim();
  const tooLong = [...trimmed].length > 80;

  return (
    <div className="card settings-section">
      <h2>New webhook</h2>
      <p className="muted">
        A webhook is an address other programs (a build server, a home hub, a script) can call to start your tasks that wait for
        it.
      </p>
      <form
        className="hook-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!trimmed || tooLong) return;
          create.mutate(trimmed, {
            onSuccess: (hook) => {
              setMade(hook);
              setName('');
            },
          });
        }}
      >
        <label className="field">
          <span className="field-label">Name</span>
          <input value={name} maxLength={200} placeholder="e.g. Build server" onChange={(e) => setName(e.target.value)} />
        </label>
        <button type="submit" className="btn btn-primary" disabled={!trimmed || tooLong || create.isPending}>
          Create webhook
        </button>
      </form>
      {tooLong ? <p className="task-problem">A name can be at most 80 characters.</p> : null}
      <ErrorNotice error={create.error} prefix="Couldn't make the webhook." />
      {made ? <SecretOnce hook={made} onDone={() => setMade(null)} /> : null}
    </div>
  );
}

function SecretOnce({ hook, onDone }: { hook: NewHook; onDone: () => void }) {
  const curl = curlLine(hook.url, hook.secret);
  return (
    <section className="hook-secret" aria-label={`Webhook ${hook.name} made`} data-testid="hook-secret">
      <p className="notice notice-warn">
        Copy the secret now: this is the only time Sentient shows it. If you lose it, delete the webhook and make a new one.
      </p>
      <dl className="facts">
        <dt>Address</dt>
        <dd>
          <code data-testid="hook-url">{hook.url}</code> <CopyButton value={hook.url} label="Copy the address" />
        </dd>
        <dt>Secret</dt>
        <dd>
          <code data-testid="hook-secret-value">{hook.secret}</code> <CopyButton value={hook.secret} label="Copy the secret" />
        </dd>
        <dt>Try it</dt>
        <dd>
          <code className="hook-curl" data-testid="hook-curl">
            {curl}
          </code>{' '}
          <CopyButton value={curl} label="Copy the curl command" />
        </dd>
      </dl>
      <button type="button" className="btn" onClick={onDone}>
        I've copied it
      </button>
    </section>
  );
}
