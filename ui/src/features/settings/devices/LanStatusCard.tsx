// The LAN listener as it is right now: running on which port, off, or why it can't run; the
// addresses devices use; the certificate fingerprint devices pin; and whether it is announced.
// After a change of the settings it asks again every half second for a few seconds, until the
// listener does what the settings say (the engine starts it after it has answered the save).
import { useEffect, useState } from 'react';
import type { LanStatus } from '../../../api';
import { useLanStatus } from '../../devices';
import { ErrorNotice, Loading } from '../../../components/Page';
import { CopyButton } from '../../../components/CopyButton';
import { lanSettled, lanStateWords, type NodesSettings } from './fields';

const POLL_MS = 500;
const WATCH_MS = 8000;

/** True for a few seconds after `key` changes (and after the first render). */
function useRecentlyChanged(key: string): boolean {
  const [recent, setRecent] = useState(true);
  useEffect(() => {
    setRecent(true);
    const timer = setTimeout(() => setRecent(false), WATCH_MS);
    return () => clearTimeout(timer);
  }, [key]);
  return recent;
}

export function LanStatusCard({ nodes }: { nodes: NodesSettings }) {
  const recent = useRecentlyChanged(`${nodes.enabled}/${nodes.lan_enabled}/${nodes.lan_port}/${nodes.mdns_enabled}`);
  const [settled, setSettled] = useState(true);
  const lan = useLanStatus({ refetchInterval: recent && !settled ? POLL_MS : false });
  useEffect(() => {
    if (lan.data) setSettled(lanSettled(lan.data, nodes));
  }, [lan.data, nodes]);

  return (
    <section className="card settings-section lan-status" aria-label="Network listener" data-testid="lan-status">
      <h2>Network listener</h2>
      {lan.isPending ? (
        <Loading label="Asking the listener…" />
      ) : lan.error ? (
        <ErrorNotice error={lan.error} prefix="Couldn't read the listener's state." onRetry={() => void lan.refetch()} />
      ) : (
        <LanFacts lan={lan.data} nodes={nodes} />
      )}
    </section>
  );
}

function LanFacts({ lan, nodes }: { lan: LanStatus; nodes: NodesSettings }) {
  const state = lanStateWords(lan, nodes);
  const failed = !lan.running && Boolean(lan.error);
  return (
    <>
      <p
        className={lan.running ? 'lan-state lan-running' : failed ? 'lan-state lan-failed' : 'lan-state'}
        data-testid="lan-state"
        role={failed ? 'alert' : 'status'}
      >
        <span className={lan.running ? 'lan-dot lan-dot-on' : 'lan-dot'} aria-hidden="true" />
        {state}
      </p>
      {lan.running && lan.error ? (
        <p className="notice notice-warn" data-testid="lan-warning">
          {lan.error}
        </p>
      ) : null}
      {lan.running ? (
        <dl className="facts lan-facts">
          <dt>Device app</dt>
          <dd data-testid="lan-web-urls">
            {lan.web_urls.map((u) => (
              <code key={u} className="lan-url">
                {u}
              </code>
            ))}
          </dd>
          <dt>Device connection</dt>
          <dd data-testid="lan-urls">
            {lan.urls.map((u) => (
              <code key={u} className="lan-url">
                {u}
              </code>
            ))}
          </dd>
          <dt>Certificate fingerprint</dt>
          <dd>
            {lan.fingerprint ? (
              <div className="lan-fingerprint-row">
                <pre className="lan-fingerprint" data-testid="lan-fingerprint">
                  {lan.fingerprint}
                </pre>
                <CopyButton value={lan.fingerprint} label="Copy the fingerprint" />
              </div>
            ) : (
              <span className="muted">None yet</span>
            )}
          </dd>
          <dt>Announced on your network</dt>
          <dd data-testid="lan-mdns">{lan.mdns ? 'Yes' : 'No'}</dd>
        </dl>
      ) : (
        <dl className="facts lan-facts">
          <dt>Announced on your network</dt>
          <dd data-testid="lan-mdns">{lan.mdns ? 'Yes' : 'No'}</dd>
        </dl>
      )}
    </>
  );
}
