// Settings > Webhooks: make a hook (its secret shown once), see each hook's calls and last call,
// delete one (after a confirm), and the limits every hook has (the largest message, calls per
// minute), generated from the settings' schema so their ranges are the engine's.
import { useState } from 'react';
import type { Hook } from '../../../api';
import { useDeleteHook, useHooks } from '../queries';
import { ErrorNotice, Loading } from '../../../components/Page';
import { localTime } from '../../../components/time';
import { SchemaForm } from '../form/SchemaForm';
import { NewHookCard } from './NewHookCard';
import './webhooks.css';

export function WebhooksSettings() {
  const hooks = useHooks();
  return (
    <>
      <NewHookCard />
      <div className="card settings-section">
        <h2>Your webhooks</h2>
        {hooks.isPending ? (
          <Loading label="Loading webhooks…" />
        ) : hooks.error ? (
          <ErrorNotice error={hooks.error} prefix="Couldn't load the webhooks." onRetry={() => void hooks.refetch()} />
        ) : hooks.data.length === 0 ? (
          <p className="muted">No webhooks yet. Make one above, then pick it as the trigger of a task.</p>
        ) : (
          <ul className="hook-list" aria-label="Webhooks">
            {hooks.data.map((hook) => (
              <HookRow key={hook.id} hook={hook} />
            ))}
          </ul>
        )}
      </div>
      <SchemaForm
        section={['integrations']}
        fields={[
          { key: 'webhook_max_body_kb', title: 'Largest message a webhook accepts' },
          { key: 'webhook_rate_limit_per_minute', title: 'Most calls per minute for one webhook', unit: 'calls' },
        ]}
        title="Limits for every webhook"
        intro="So a program that misbehaves, or a leaked address, can't flood Sentient."
        testId="webhook-limits"
      />
    </>
  );
}

function HookRow({ hook }: { hook: Hook }) {
  const del = useDeleteHook();
  const [confirming, setConfirming] = useState(false);
  return (
    <li className="hook-row" data-testid="hook-row" data-hook-id={hook.id}>
      <div className="hook-row-main">
        <strong>{hook.name}</strong>
        <code className="hook-url">{hook.url}</code>
        <span className="muted" data-testid="hook-calls">
          {hook.calls === 0 ? 'Not called yet' : `${hook.calls} ${hook.calls === 1 ? 'call' : 'calls'}`}
          {hook.last_called_at ? ` · last ${localTime(hook.last_called_at)}` : ''}
        </span>
      </div>
      {confirming ? (
        <span className="task-actions" role="group" aria-label={`Delete ${hook.name}?`}>
          <span>Delete this webhook? Programs calling it will be turned away.</span>
          <button type="button" className="btn btn-stop" disabled={del.isPending} onClick={() => del.mutate(hook.id)}>
            Yes, delete it
          </button>
          <button type="button" className="btn btn-quiet" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </span>
      ) : (
        <button type="button" className="btn btn-quiet" aria-label={`Delete ${hook.name}`} onClick={() => setConfirming(true)}>
          Delete
        </button>
      )}
      <ErrorNotice error={del.error} prefix="Couldn't delete it." />
    </li>
  );
}
