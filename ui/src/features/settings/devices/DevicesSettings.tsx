// Settings > Devices: whether devices may connect, whether those on the local network may (the
// LAN listener), its announcement, approvals for photos and screens, and three numbers, each
// saved at once; then the listener's live state, and what it serves.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { toApiError } from '../../../api/errors';
import { queryKeys, useConfig, usePatchConfig } from '../../../api/queries';
import { ErrorNotice, Loading } from '../../../components/Page';
import { LanStatusCard } from './LanStatusCard';
import { NUMBERS, TOGGLES, nodesFrom, parseWhole, type NodesSettings, type NumberKey } from './fields';
import './devices-settings.css';

export const NETWORK_NOTE =
  "On your network, Sentient serves only what devices need: the device connection, the device app, a paired device's uploads and webhooks. Everything goes over TLS, and each device pins this computer's certificate by its fingerprint, so another computer can't pretend to be it. Sentient's API, with your chats, tasks, memory, settings and files, stays on this computer and never answers on the network.";

/** Saves a change of the `nodes` section, then asks the listener how it is doing. */
function useSaveNodes() {
  const patch = usePatchConfig();
  const qc = useQueryClient();
  const save = (change: Partial<NodesSettings>) =>
    patch.mutate({ nodes: change }, { onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.lan }) });
  return { patch, save };
}

export function DevicesSettings() {
  const config = useConfig();
  if (config.isPending) return <Loading label="Loading settings…" />;
  if (config.error) return <ErrorNotice error={toApiError(config.error)} prefix="Couldn't load the settings." onRetry={() => void config.refetch()} />;
  const nodes = nodesFrom(config.data);
  return (
    <>
      <Toggles nodes={nodes} />
      <LanStatusCard nodes={nodes} />
      <Numbers nodes={nodes} />
      <div className="card settings-section">
        <h2>What the network sees</h2>
        <p className="muted" data-testid="network-note">
          {NETWORK_NOTE}
        </p>
      </div>
    </>
  );
}

function Toggles({ nodes }: { nodes: NodesSettings }) {
  const { patch, save } = useSaveNodes();
  return (
    <div className="card settings-section">
      <h2>Devices</h2>
      <ul className="toggle-list">
        {TOGGLES.map((t) => {
          const id = `nodes-${t.key}`;
          return (
            <li key={t.key} className="toggle-row">
              <input
                id={id}
                type="checkbox"
                role="switch"
                className="toggle"
                checked={nodes[t.key]}
                disabled={patch.isPending}
                aria-describedby={`${id}-help`}
                onChange={(e) => save({ [t.key]: e.target.checked })}
              />
              <label htmlFor={id} className="toggle-text">
                <span className="field-label">{t.label}</span>
                <span className="field-help" id={`${id}-help`}>
                  {t.help}
                </span>
              </label>
            </li>
          );
        })}
      </ul>
      {patch.isPending ? (
        <p className="muted" role="status">
          Saving…
        </p>
      ) : null}
      <ErrorNotice error={patch.error} prefix="Couldn't save that." />
    </div>
  );
}

function Numbers({ nodes }: { nodes: NodesSettings }) {
  return (
    <div className="card settings-section">
      <h2>Connection details</h2>
      <div className="number-fields">
        {NUMBERS.map((n) => (
          <NumberField key={n.key} field={n} value={nodes[n.key]} />
        ))}
      </div>
    </div>
  );
}

function NumberField({ field, value }: { field: (typeof NUMBERS)[number]; value: number }) {
  const { patch, save } = useSaveNodes();
  const [draft, setDraft] = useState(String(value));
  const [problem, setProblem] = useState<string | null>(null);
  // The value last sent, so Enter and the blur after it save once.
  const sent = useRef<number | null>(null);
  const id = `nodes-${field.key}`;

  useEffect(() => {
    setDraft(String(value));
    sent.current = null;
  }, [value]);

  const commit = () => {
    const n = parseWhole(draft, field.min, field.max);
    if (n === null) {
      setProblem(field.error);
      return;
    }
    setProblem(null);
    setDraft(String(n));
    if (n === value || n === sent.current) return;
    sent.current = n;
    save({ [field.key as NumberKey]: n });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    commit();
  };

  return (
    <form className="number-field" onSubmit={submit} noValidate>
      <label className="field" htmlFor={id}>
        <span className="field-label">{field.label}</span>
        <span className="field-help">{field.help}</span>
        <input
          id={id}
          inputMode="numeric"
          autoComplete="off"
          value={draft}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onChange={(e) => {
            setDraft(e.target.value);
            patch.reset();
            sent.current = null;
          }}
          onBlur={commit}
        />
      </label>
      {problem ? (
        <p className="field-problem" id={`${id}-problem`} role="alert">
          {problem}
        </p>
      ) : null}
      {patch.isPending ? (
        <p className="muted" role="status">
          Saving…
        </p>
      ) : null}
      <ErrorNotice error={patch.error} prefix="Couldn't save that." />
    </form>
  );
}
