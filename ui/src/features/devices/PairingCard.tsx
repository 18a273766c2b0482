// Pair a device: the 6-digit code, large; the QR code a phone camera opens; the link to open by
// hand (copyable); the certificate fingerprint when the LAN listener runs; and how long is left.
import { useEffect, useState } from 'react';
import type { Pairing } from '../../api';
import { CopyButton } from '../settings/webhooks/CopyButton';
import { countdown, svgImageSrc } from './words';

/** The current time, again every `ms`. */
export function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

export function PairingCard({
  pairing,
  busy,
  onNewCode,
  onClose,
}: {
  pairing: Pairing;
  busy: boolean;
  onNewCode: () => void;
  onClose: () => void;
}) {
  const now = useNow(1000);
  const left = countdown(pairing.expires_at, now);
  const qr = svgImageSrc(pairing.qr_svg);
  const expired = left.left === 0;

  return (
    <section className="card pairing" aria-label="Pair a device" data-testid="pairing">
      <h2>Pair a device</h2>
      {expired ? (
        <div className="pairing-expired">
          <p>This code has expired. Make a new one to pair a device.</p>
          <button type="button" className="btn btn-primary" disabled={busy} onClick={onNewCode}>
            Make a new code
          </button>
        </div>
      ) : (
        <div className="pairing-body">
          {qr ? <img className="pairing-qr" src={qr} alt="QR code to pair a device" width={200} height={200} /> : null}
          <div className="pairing-main">
            <p className="muted">On your phone, scan the QR code with the camera, or open the link below. If it asks for a code, enter:</p>
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
            {pairing.fingerprint ? (
              <p className="pairing-fingerprint muted">
                Certificate fingerprint: <code data-testid="pairing-fingerprint">{pairing.fingerprint}</code>
              </p>
            ) : null}
            <p className="muted">The code works once, for 10 minutes.</p>
          </div>
        </div>
      )}
      <div className="task-actions">
        <button type="button" className="btn btn-quiet" onClick={onClose}>
          Done
        </button>
      </div>
    </section>
  );
}
