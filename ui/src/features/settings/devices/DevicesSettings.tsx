// Settings > Devices: whether devices may connect, whether those on the local network may (the
// LAN listener), its announcement, approvals for photos and screens, and three numbers, each
// saved at once through the form generated from the settings' schema; then the listener's live
// state, and what it serves.
import { useQueryClient } from '@tanstack/react-query';
import { toApiError } from '../../../api/errors';
import { queryKeys } from '../../../api/queries';
import { useConfig } from '../../../api/shared';
import { ErrorNotice, Loading } from '../../../components/Page';
import { SchemaForm } from '../form/SchemaForm';
import { LanStatusCard } from './LanStatusCard';
import { NUMBER_FIELDS, TOGGLE_FIELDS, nodesFrom } from './fields';
import './devices-settings.css';

export const NETWORK_NOTE =
  "On your network, Sentient serves only what devices need: the device connection, the device app, a paired device's uploads and webhooks. Everything goes over TLS, and each device pins this computer's certificate by its fingerprint, so another computer can't pretend to be it. Sentient's API, with your chats, tasks, memory, settings and files, stays on this computer and never answers on the network.";

export function DevicesSettings() {
  const config = useConfig();
  const qc = useQueryClient();
  // After a save, ask the listener how it is doing.
  const askListener = () => void qc.invalidateQueries({ queryKey: queryKeys.lan });
  if (config.isPending) return <Loading label="Loading settings…" />;
  if (config.error) return <ErrorNotice error={toApiError(config.error)} prefix="Couldn't load the settings." onRetry={() => void config.refetch()} />;
  const nodes = nodesFrom(config.data);
  return (
    <>
      <SchemaForm section={['nodes']} fields={TOGGLE_FIELDS} title="Devices" onSaved={askListener} testId="devices-switches" />
      <LanStatusCard nodes={nodes} />
      <SchemaForm section={['nodes']} fields={NUMBER_FIELDS} title="Connection details" onSaved={askListener} testId="devices-numbers" />
      <div className="card settings-section">
        <h2>What the network sees</h2>
        <p className="muted" data-testid="network-note">
          {NETWORK_NOTE}
        </p>
      </div>
    </>
  );
}
