// One device: online or not, what it is and how it is connected, battery, when it was last seen,
// what it can do; rename it in place, remove it (after a confirm; never the desktop app
// itself), and try what it offers.
import { useState, type FormEvent } from 'react';
import type { InvokeReply, Node } from '../../api';
import { useDeleteNode, useInvokeNode, useRenameNode } from './queries';
import { ErrorNotice } from '../../components/Page';
import { DevicesIcon, GlassesIcon, MonitorIcon, WatchIcon } from '../../components/icons';
import {
  DESKTOP_NODE_ID,
  batteryWords,
  capabilityWords,
  connectionWords,
  kindWords,
  replyError,
  seenWords,
} from './words';

const TEST_TEXT = 'This is a test from Sentient.';

/** The capabilities the page can try, in the order their buttons show. */
export const TEST_ACTIONS = [
  { capability: 'notify.show', label: 'Send a test notification', params: { title: 'Sentient', text: TEST_TEXT } },
  { capability: 'display.text', label: 'Show a test message', params: { text: TEST_TEXT } },
  { capability: 'location.get', label: 'Get its location', params: {} },
  { capability: 'camera.photo', label: 'Take a photo', params: {} },
] as const;

type TestAction = (typeof TEST_ACTIONS)[number];

function KindIcon({ kind }: { kind: string }) {
  if (kind === 'glasses') return <GlassesIcon size={22} />;
  if (kind === 'watch') return <WatchIcon size={22} />;
  if (kind === 'desktop') return <MonitorIcon size={22} />;
  return <DevicesIcon size={22} />;
}

export function DeviceCard({ node, now }: { node: Node; now: Date }) {
  const [mode, setMode] = useState<'idle' | 'rename' | 'remove'>('idle');
  const [name, setName] = useState(node.name);
  const rename = useRenameNode();
  const remove = useDeleteNode();
  const battery = batteryWords(node);
  const caps = capabilityWords(node.capabilities);
  const tests = TEST_ACTIONS.filter((t) => node.capabilities.includes(t.capability));
  const removable = node.node_id !== DESKTOP_NODE_ID;

  const save = (e: FormEvent) => {
    e.preventDefault();
    const next = name.trim();
    if (!next) return;
    if (next === node.name) {
      setMode('idle');
      return;
    }
    rename.mutate({ id: node.node_id, name: next }, { onSuccess: () => setMode('idle') });
  };

  return (
    <li
      className={node.online ? 'card device device-online' : 'card device'}
      data-testid="device"
      data-node-id={node.node_id}
      data-online={node.online ? 'true' : 'false'}
    >
      <div className="device-head">
        <span className="device-icon" aria-hidden="true">
          <KindIcon kind={node.kind} />
        </span>
        <span
          className={node.online ? 'device-dot online' : 'device-dot'}
          role="img"
          aria-label={node.online ? 'Online' : 'Offline'}
          data-testid="device-status"
        />
        {mode === 'rename' ? (
          <form className="device-rename" onSubmit={save}>
            <input aria-label="Device name" value={name} maxLength={80} onChange={(e) => setName(e.target.value)} autoFocus />
            <button type="submit" className="btn btn-primary" disabled={!name.trim() || rename.isPending}>
              Save
            </button>
            <button
              type="button"
              className="btn btn-quiet"
              onClick={() => {
                rename.reset();
                setMode('idle');
              }}
            >
              Cancel
            </button>
          </form>
        ) : (
          <h2 className="device-name" data-testid="device-name">
            {node.name}
          </h2>
        )}
        {mode === 'idle' ? (
          <span className="device-actions">
            <button
              type="button"
              className="btn btn-quiet"
              aria-label={`Rename ${node.name}`}
              onClick={() => {
                setName(node.name);
                setMode('rename');
              }}
            >
              Rename
            </button>
            {removable ? (
              <button type="button" className="btn btn-quiet" aria-label={`Remove ${node.name}`} onClick={() => setMode('remove')}>
                Remove
              </button>
            ) : null}
          </span>
        ) : null}
      </div>

      {mode === 'remove' ? (
        <div className="task-actions device-confirm" role="group" aria-label={`Remove ${node.name}?`}>
          <span>Remove {node.name}? It will be disconnected and needs a new pairing code to come back.</span>
          <button
            type="button"
            className="btn btn-stop"
            disabled={remove.isPending}
            onClick={() => remove.mutate(node.node_id, { onError: () => setMode('idle') })}
          >
            Yes, remove it
          </button>
          <button type="button" className="btn btn-quiet" onClick={() => setMode('idle')}>
            Keep it
          </button>
        </div>
      ) : null}

      <p className="device-facts muted" data-testid="device-facts">
        {[kindWords(node.kind), node.platform || null, connectionWords(node), battery ? `Battery ${battery}` : null, seenWords(node, now)]
          .filter(Boolean)
          .join(' · ')}
      </p>
      {caps.length > 0 ? (
        <ul className="device-caps" aria-label="What it can do">
          {caps.map((c) => (
            <li key={c} className="device-cap">
              {c}
            </li>
          ))}
        </ul>
      ) : null}

      {tests.length > 0 ? (
        <div className="device-tests" role="group" aria-label={`Try ${node.name}`}>
          {tests.map((t) => (
            <TestButton key={t.capability} node={node} action={t} />
          ))}
        </div>
      ) : null}

      <ErrorNotice error={rename.error} prefix="Couldn't rename it." />
      <ErrorNotice error={remove.error} prefix="Couldn't remove it." />
    </li>
  );
}

function TestButton({ node, action }: { node: Node; action: TestAction }) {
  const invoke = useInvokeNode(node.node_id);
  return (
    <div className="device-test" data-testid="device-test" data-capability={action.capability}>
      <button
        type="button"
        className="btn"
        disabled={invoke.isPending || !node.online}
        title={node.online ? undefined : 'The device is offline.'}
        onClick={() => invoke.mutate({ capability: action.capability, params: { ...action.params } })}
      >
        {action.label}
      </button>
      {invoke.isPending ? (
        <span className="muted" role="status">
          Waiting for {node.name}…
        </span>
      ) : null}
      {invoke.data ? <TestResult capability={action.capability} reply={invoke.data} name={node.name} /> : null}
      <ErrorNotice error={invoke.error} prefix="Couldn't reach the device." />
    </div>
  );
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function TestResult({ capability, reply, name }: { capability: string; reply: InvokeReply; name: string }) {
  if (!reply.ok) {
    return (
      <p className="device-test-error" role="alert">
        {replyError(reply)}
      </p>
    );
  }
  const data = reply.data ?? {};
  if (capability === 'location.get') {
    const lat = num(data.lat);
    const lon = num(data.lon);
    const accuracy = num(data.accuracy_m);
    const label = typeof data.label === 'string' ? data.label : null;
    if (lat === null || lon === null) return <p className="device-test-error">The device answered without a location.</p>;
    return (
      <p className="device-test-result" data-testid="device-location">
        {label ? `${label}: ` : ''}
        {lat.toFixed(5)}, {lon.toFixed(5)}
        {accuracy !== null ? ` (within ${Math.round(accuracy)} m)` : ''}
      </p>
    );
  }
  if (capability === 'camera.photo') {
    const base64 = typeof data.base64 === 'string' ? data.base64 : null;
    const mime = typeof data.mime === 'string' && /^image\/[a-z0-9.+-]+$/i.test(data.mime) ? data.mime : 'image/jpeg';
    if (!base64) return <p className="device-test-error">The device answered without a photo.</p>;
    return <img className="device-photo" src={`data:${mime};base64,${base64}`} alt={`Photo from ${name}`} />;
  }
  return <p className="device-test-result">{capability === 'notify.show' ? 'Sent. Check the device.' : 'Shown on the device.'}</p>;
}
