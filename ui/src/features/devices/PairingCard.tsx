// Pair a device. A phone reaches Sentient over the local network, so the card first makes sure
// the LAN listener runs: with it off, it asks to turn it on (one button), shows "Starting…" until
// `GET /api/nodes/lan` says it runs (or why it couldn't start, with Try again), and only then makes
// a code. The code shows large, with the QR code a phone camera opens, the link to open by hand
// (copyable), a short code to compare with the certificate the phone sees (the whole fingerprint
// under Details) and how long is left. An address only this computer can
// open (127.0.0.1, localhost) is never shown: not in the QR code, not as the link.
import { useEffect, useRef, useState } from 'react';
import type { ApiError, Pairing } from '../../api';
import { usePatchConfig } from '../../api/shared';
import { useCreatePairing, useLanStatus } from './queries';
import { ErrorNotice, Loading } from '../../components/Page';
import { CopyButton } from '../../components/CopyButton';
import { countdown, isLoopbackUrl, lanErrorWords, shortFingerprint, svgImageSrc } from './words';

/** The current time, again every `ms`. */
export function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

export const ASK_WORDS =
  'Phones connect to Sentient over your Wi-Fi. To pair one, let Sentient accept devices on your local network first.';
export const TURN_ON_LABEL = 'Accept devices on your local network';
export const STARTING_WORDS = 'Starting…';
export const UNREACHABLE_WORDS =
  "This computer isn't connected to a network your phone can reach. Connect it to the same Wi-Fi as your phone, then try again.";
/** How long "Starting…" may take before the card says it is taking too long. */
export const SLOW_START_MS = 20_000;
/** How often the card asks whether the listener runs while it waits for it. */
const POLL_MS = 1000;

type Phase = 'checking' | 'check-failed' | 'ask' | 'starting' | 'slow' | 'failed' | 'ready';

/**
 * The whole "Pair a device" card. `newCode` changes when the page's Pair a device button is
 * pressed again while the card is open: a fresh code is made then.
 */
export function PairDevice({ newCode, onClose }: { newCode: number; onClose: () => void }) {
  const patch = usePatchConfig();
  const create = useCreatePairing();
  const [turningOn, setTurningOn] = useState(false);
  const [waitingSince, setWaitingSince] = useState<number | null>(null);
  const [pairing, setPairing] = useState<Pairing | null>(null);
  // While the listener is starting (or failed and may recover), ask again every second.
  const [polling, setPolling] = useState(false);
  const lan = useLanStatus({ refetchInterval: polling ? POLL_MS : false });
  const now = useNow(1000);
  const asked = useRef<string | null>(null);

  const status = lan.data;
  let phase: Phase;
  if (!status) phase = lan.error ? 'check-failed' : 'checking';
  else if (status.running) phase = 'ready';
  else if (!status.enabled && !turningOn) phase = 'ask';
  else if (status.error && status.enabled && !patch.isPending) phase = 'failed';
  else phase = waitingSince !== null && now - waitingSince > SLOW_START_MS ? 'slow' : 'starting';

  useEffect(() => setPolling(phase === 'starting' || phase === 'slow' || phase === 'failed'), [phase]);
  useEffect(() => {
    if (turningOn && status?.enabled) setTurningOn(false);
  }, [turningOn, status?.enabled]);
  useEffect(() => {
    if ((phase === 'starting' || phase === 'slow') && waitingSince === null) setWaitingSince(Date.now());
    if (phase !== 'starting' && phase !== 'slow' && waitingSince !== null) setWaitingSince(null);
  }, [phase, waitingSince]);

  // Once phones can reach Sentient, make a code: once per press of Pair a device, and again when
  // the person asks for a new one.
  const [attempt, setAttempt] = useState(0);
  const wanted = `${newCode}:${attempt}`;
  useEffect(() => {
    if (phase !== 'ready' || asked.current === wanted) return;
    asked.current = wanted;
    setPairing(null);
    create.mutate(undefined, { onSuccess: (p) => setPairing(p) });
    // `create` is a new object on every render; the code is made once per `wanted`.
  }, [phase, wanted]);

  const turnOn = () => {
    setTurningOn(true);
    setWaitingSince(Date.now());
    patch.mutate(
      { nodes: { lan_enabled: true } },
      {
        onSuccess: () => void lan.refetch(),
        onError: () => setTurningOn(false),
      },
    );
  };
  // The listener only starts again when the setting changes, so Try again turns it off and on.
  const startAgain = async () => {
    setTurningOn(true);
    setWaitingSince(Date.now());
    try {
      await patch.mutateAsync({ nodes: { lan_enabled: false } });
      await patch.mutateAsync({ nodes: { lan_enabled: true } });
    } catch {
      setTurningOn(false);
      return;
    }
    void lan.refetch();
  };
  const makeNewCode = () => {
    create.reset();
    setAttempt((n) => n + 1);
    void lan.refetch();
  };

  let body;
  switch (phase) {
    case 'checking':
      body = <Loading label="Checking whether phones can reach Sentient…" />;
      break;
    case 'check-failed':
      body = (
        <ErrorNotice
          error={lan.error as ApiError}
          prefix="Couldn't check whether phones can reach Sentient."
          onRetry={() => void lan.refetch()}
        />
      );
      break;
    case 'ask':
      body = (
        <div className="pairing-ask" data-testid="pairing-ask">
          <p>{ASK_WORDS}</p>
          <p className="muted">Only devices you pair with a code can connect. You can turn this off again in Settings &gt; Devices.</p>
          <div className="task-actions">
            <button type="button" className="btn btn-primary" disabled={patch.isPending} onClick={turnOn}>
              {TURN_ON_LABEL}
            </button>
          </div>
          <ErrorNotice error={patch.error} prefix="Couldn't turn it on." />
        </div>
      );
      break;
    case 'starting':
      body = (
        <div className="pairing-starting">
          <p className="pairing-state" role="status" data-testid="pairing-starting">
            {STARTING_WORDS}
          </p>
          <p className="muted">Sentient is getting ready for devices on your network. The code shows here in a moment.</p>
        </div>
      );
      break;
    case 'slow':
      body = (
        <div className="notice notice-warn" role="status" data-testid="pairing-slow">
          <p>Sentient hasn't started listening on your network yet. It usually takes a second or two.</p>
          <div className="task-actions">
            <button type="button" className="btn btn-primary" disabled={patch.isPending} onClick={() => void startAgain()}>
              Try again
            </button>
            <a className="btn btn-quiet" href="#/settings/devices">
              Open Settings &gt; Devices
            </a>
          </div>
        </div>
      );
      break;
    case 'failed':
      body = (
        <div className="notice notice-error" role="alert" data-testid="pairing-failed">
          <p>
            Sentient couldn't start listening for devices on your network. {lanErrorWords(status?.error ?? '')}
          </p>
          <div className="task-actions">
            <button type="button" className="btn btn-primary" disabled={patch.isPending} onClick={() => void startAgain()}>
              Try again
            </button>
            <a className="btn btn-quiet" href="#/settings/devices">
              Open Settings &gt; Devices
            </a>
          </div>
          <ErrorNotice error={patch.error} prefix="Couldn't turn it on." />
        </div>
      );
      break;
    case 'ready':
      if (create.error) {
        body = <ErrorNotice error={create.error} prefix="Couldn't make a pairing code." onRetry={makeNewCode} />;
      } else if (!pairing) {
        body = <Loading label="Making a code…" />;
      } else if (isLoopbackUrl(pairing.web_url)) {
        body = (
          <div className="notice notice-warn" role="status" data-testid="pairing-unreachable">
            <p>{UNREACHABLE_WORDS}</p>
            <div className="task-actions">
              <button type="button" className="btn btn-primary" onClick={makeNewCode}>
                Try again
              </button>
            </div>
          </div>
        );
      } else {
        body = <PairingCode pairing={pairing} busy={create.isPending} onNewCode={makeNewCode} />;
      }
      break;
  }

  return (
    <section className="card pairing" aria-label="Pair a device" data-testid="pairing" data-phase={phase}>
      <h2>Pair a device</h2>
      {body}
      <div className="task-actions">
        <button type="button" className="btn btn-quiet" onClick={onClose}>
          Done
        </button>
      </div>
    </section>
  );
}

/** The code, the QR code, the link and the countdown of a pairing a phone can reach. */
export function PairingCode({ pairing, busy, onNewCode }: { pairing: Pairing; busy: boolean; onNewCode: () => void }) {
  const now = useNow(1000);
  const left = countdown(pairing.expires_at, now);
  const qr = svgImageSrc(pairing.qr_svg);
  const expired = left.left === 0;
  const short = shortFingerprint(pairing.fingerprint);

  if (expired) {
    return (
      <div className="pairing-expired">
        <p>This code has expired. Make a new one to pair a device.</p>
        <button type="button" className="btn btn-primary" disabled={busy} onClick={onNewCode}>
          Make a new code
        </button>
      </div>
    );
  }
  return (
    <div className="pairing-body">
      {qr ? <img className="pairing-qr" src={qr} alt="QR code to pair a device" width={200} height={200} /> : null}
      <div className="pairing-main">
        <p className="muted">On your phone, connected to the same Wi-Fi, scan the QR code with the camera, or open the link below. If it asks for a code, enter:</p>
        <p className="pairing-code" data-testid="pairing-code" aria-label={`Pairing code ${pairing.code}`}>
          {pairing.code}
        </p>
        <p className="muted" data-testid="pairing-expiry" aria-live="off">
          Expires in {left.words}
        </p>
        <p className="pairing-link">
          <a href={pairing.web_url} target="_blank" rel="noreferrer" data-testid="pairing-url">
            {pairing.web_url}
          </a>{' '}
          <CopyButton value={pairing.web_url} label="Copy the link" />
        </p>
        {short ? (
          <p className="pairing-short-code">
            To check it's this computer, its certificate starts with{' '}
            <strong data-testid="pairing-short-code" className="pairing-short">
              {short}
            </strong>
            . Your phone's browser shows it under the certificate's details (SHA-256).
          </p>
        ) : null}
        {pairing.fingerprint ? (
          <details className="pairing-fingerprint muted">
            <summary>Details</summary>
            <p>
              Certificate fingerprint (SHA-256): <code data-testid="pairing-fingerprint">{pairing.fingerprint}</code>{' '}
              <CopyButton value={pairing.fingerprint} label="Copy the fingerprint" />
            </p>
          </details>
        ) : null}
        <p className="muted">The code works once, for 10 minutes. Your phone may warn that the connection isn't private the first time: that is Sentient's own certificate, and it is safe to continue.</p>
      </div>
    </div>
  );
}
