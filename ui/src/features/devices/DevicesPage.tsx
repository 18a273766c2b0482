// The Devices page: pair a phone (asking to accept devices on the local network first when that
// is off, then the code, QR code, link and countdown), every paired device with its state (online
// first, live from `node.updated` / `node.deleted`), rename, remove and a test of what each device
// offers; and a note when phones on the network can't reach Sentient.
import { useState } from 'react';
import type { LanStatus } from '../../api';
import { usePatchConfig } from '../../api/shared';
import { useLanStatus, useNodes } from './queries';
import { EmptyState, ErrorNotice, Loading, Page } from '../../components/Page';
import { DevicesIcon } from '../../components/icons';
import { DeviceCard } from './DeviceCard';
import { PairDevice, useNow } from './PairingCard';
import { DESKTOP_NODE_ID } from './words';
import './devices.css';

export const EMPTY_WORDS = 'No devices yet. Pair your phone to send it notifications and photos.';
const LAN_OFF_LEAD = "Phones on your network can't reach Sentient until you turn on 'Accept devices on your local network' in";
export const LAN_SETTINGS_HREF = '#/settings/devices';
export const LAN_OFF_WORDS = `${LAN_OFF_LEAD} Settings > Devices.`;

export function DevicesPage() {
  const nodes = useNodes();
  const lan = useLanStatus();
  // The card is open; `known` are the devices there were when it opened, to tell when a new one
  // has paired, and `code` counts presses of Pair a device (each makes a fresh code).
  const [pairing, setPairing] = useState<{ known: string[] | null; code: number } | null>(null);
  const now = new Date(useNow(30_000));

  const pair = () =>
    setPairing((prev) => ({ known: prev?.known ?? nodes.data?.map((n) => n.node_id) ?? null, code: (prev?.code ?? 0) + 1 }));
  const known = pairing?.known;
  const paired = known ? nodes.data?.find((n) => !known.includes(n.node_id)) : undefined;

  let body;
  if (nodes.isPending) body = <Loading label="Loading devices…" />;
  else if (nodes.error) body = <ErrorNotice error={nodes.error} prefix="Couldn't load your devices." onRetry={() => void nodes.refetch()} />;
  else {
    const others = nodes.data.filter((n) => n.node_id !== DESKTOP_NODE_ID);
    body = (
      <>
        {others.length === 0 ? (
          <EmptyState icon={<DevicesIcon size={28} />} title="No devices">
            <p>{EMPTY_WORDS}</p>
          </EmptyState>
        ) : null}
        {nodes.data.length > 0 ? (
          <ul className="device-list" aria-label="Devices">
            {nodes.data.map((n) => (
              <DeviceCard key={n.node_id} node={n} now={now} />
            ))}
          </ul>
        ) : null}
      </>
    );
  }

  return (
    <Page title="Devices" intro="Phones, glasses and other devices Sentient can reach: to send them notifications, show messages, take photos and ask where they are.">
      <div className="task-actions device-toolbar">
        <button type="button" className="btn btn-primary" onClick={pair}>
          Pair a device
        </button>
      </div>
      {lan.data && !pairing ? <LanNote lan={lan.data} /> : null}
      {paired ? (
        <div className="notice pairing-done" role="status" data-testid="pairing-done">
          <p>Paired with {paired.name}. You can try it below.</p>
          <button type="button" className="btn btn-quiet" onClick={() => setPairing(null)}>
            Done
          </button>
        </div>
      ) : pairing ? (
        <PairDevice newCode={pairing.code} onClose={() => setPairing(null)} />
      ) : null}
      {body}
    </Page>
  );
}

/** Why phones on the network can't reach Sentient, and the way to change it. */
function LanNote({ lan }: { lan: LanStatus }) {
  const patch = usePatchConfig();
  if (lan.running) return null;
  if (lan.enabled) {
    return (
      <div className="notice notice-warn" role="status" data-testid="lan-note">
        <p>
          Phones on your network can't reach Sentient right now.
          {lan.error ? ` ${lan.error}` : ''}
        </p>
      </div>
    );
  }
  return (
    <div className="notice notice-warn" role="status" data-testid="lan-note">
      <p>
        {LAN_OFF_LEAD} <a href={LAN_SETTINGS_HREF}>Settings &gt; Devices</a>.
      </p>
      <button
        type="button"
        className="btn"
        disabled={patch.isPending}
        onClick={() => patch.mutate({ nodes: { lan_enabled: true } })}
      >
        Turn it on
      </button>
      <ErrorNotice error={patch.error} prefix="Couldn't turn it on." />
    </div>
  );
}
