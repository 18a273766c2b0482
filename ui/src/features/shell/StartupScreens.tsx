// What shows before the app can: starting up, or why it can't start and what to do.
import { ApiError } from '../../api';
import { Loading } from '../../components/Page';

export function StartingScreen() {
  return (
    <div className="startup">
      <div className="brand brand-large">
        <span className="brand-mark" aria-hidden="true" />
        <span className="brand-name">Sentient</span>
      </div>
      <Loading label="Starting Sentient…" />
    </div>
  );
}

export function StartupError({ error, onRetry }: { error: ApiError; onRetry: () => void }) {
  let title = "Sentient couldn't start";
  let next: string | null = 'Try again in a moment. If it keeps happening, restart Sentient.';
  if (error.unreachable) {
    title = "Can't reach Sentient";
    // The detail already says what to do.
    next = null;
  } else if (error.status === 401 || error.status === 403) {
    title = "This window isn't signed in";
    next = "Open Sentient's web link again: the one Sentient printed when it started, which ends in #token=…";
  }
  return (
    <div className="startup">
      <div className="card startup-card" role="alert">
        <h1>{title}</h1>
        <p>{error.detail}</p>
        {next ? <p className="muted">{next}</p> : null}
        <button type="button" className="btn btn-primary" onClick={onRetry}>
          Try again
        </button>
      </div>
    </div>
  );
}
