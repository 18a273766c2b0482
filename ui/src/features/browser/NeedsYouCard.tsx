// A browser step only the person may do (a password, a one-time code, a CAPTCHA), under the
// browser tool that met it: why, Open browser (the profile as a window of its own), and Do it
// here (the live view). Once the page moves on, the card says so and a paused task carries on.
import { useState } from 'react';
import { LiveView } from './LiveView';
import { useBrowserStatus, useOpenBrowser } from './queries';
import './browser.css';

function sentence(reason: string): string {
  return reason ? reason.charAt(0).toUpperCase() + reason.slice(1) : '';
}

export function NeedsYouCard({ reason }: { reason: string }) {
  const status = useBrowserStatus();
  const open = useOpenBrowser();
  const [here, setHere] = useState(false);
  const waiting = status.data?.needs_you ?? null;
  return (
    <div className="needs-you" role="group" aria-label="Sentient needs you in the browser" data-testid="needs-you-card">
      <p className="needs-you-title">
        <strong>Sentient needs you in the browser.</strong> {sentence(reason)}.
      </p>
      {status.isPending ? (
        <p className="needs-you-hint">Checking the browser…</p>
      ) : waiting ? (
        <>
          <div className="needs-you-actions">
            <button type="button" className="btn btn-primary" onClick={() => open.mutate(status.data?.profile ?? 'default')} disabled={open.isPending}>
              {open.isPending ? 'Opening…' : 'Open browser'}
            </button>
            <button type="button" className="btn" aria-expanded={here} onClick={() => setHere((v) => !v)}>
              {here ? 'Hide the page' : 'Do it here'}
            </button>
          </div>
          {open.error ? (
            <p className="needs-you-error" role="alert">
              {open.error.message}
            </p>
          ) : null}
          {here ? <LiveView needsYou={waiting} /> : null}
          <p className="needs-you-hint">Paired phones got a notice too. Sentient carries on by itself once the page moves on.</p>
        </>
      ) : (
        <p className="needs-you-hint" data-testid="needs-you-done">
          Nothing in the browser is waiting for you now.
        </p>
      )}
    </div>
  );
}
