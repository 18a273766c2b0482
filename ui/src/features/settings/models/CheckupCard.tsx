// The check-up: tries each job's model the way Sentient uses it, one job at a time, showing live
// what it is doing and then every finding with what to do about it.
import type { Check, CheckStatus, RoleResult } from '../../../api';
import { useCheckup, type CheckupState } from './queries';
import { FixButton } from './FixButton';
import { roleTitle } from './roles';

const STATUS_WORDS: Record<CheckStatus, string> = {
  pass: 'Works',
  warn: 'Worth a look',
  fail: "Doesn't work",
  skip: 'Skipped',
};

const OVERALL: Record<CheckStatus, string> = {
  pass: 'Everything works.',
  warn: 'Everything works, but a few things are worth a look.',
  fail: "Some jobs won't work until you fix what is listed below.",
  skip: 'There was nothing to check.',
};

export function CheckupCard() {
  const checkup = useCheckup();
  const { state } = checkup;

  return (
    <div className="card settings-section" data-testid="checkup-card">
      <h2>Check-up</h2>
      <p className="muted">
        Tries each job's model the way Sentient uses it, one at a time, and says what to fix. It changes nothing. Local models can
        take a few minutes.
      </p>
      <div>
        <button type="button" className="btn btn-primary" onClick={() => void checkup.start()} disabled={checkup.busy}>
          {checkup.busy ? 'Checking…' : state.phase === 'idle' ? 'Run the check-up' : 'Run it again'}
        </button>
      </div>
      {state.phase === 'running' && state.picks.length === 0 ? (
        <p className="muted" role="status">
          Starting the check-up…
        </p>
      ) : null}
      {state.phase === 'done' && state.status ? (
        <p className={`checkup-overall status-${state.status}`} role="status" data-testid="checkup-done">
          {OVERALL[state.status]}
        </p>
      ) : null}
      {state.picks.length > 0 ? <CheckupRoles state={state} /> : null}
      {state.phase === 'failed' && state.error ? (
        <div className="notice notice-error" role="alert">
          <p>Couldn't finish the check-up. {state.error}</p>
        </div>
      ) : null}
    </div>
  );
}

function CheckupRoles({ state }: { state: CheckupState }) {
  return (
    <ol className="checkup-roles">
      {state.picks.map((pick) => {
        const result = state.results[pick.role];
        const step = state.steps[pick.role];
        return (
          <li key={pick.role} className="checkup-role" data-testid={`checkup-${pick.role}`}>
            <div className="checkup-role-head">
              <h3>{roleTitle(pick.role)}</h3>
              <span className="muted">{pick.model ?? 'Uses the main model'}</span>
              <RoleStatus result={result} step={step} running={state.phase === 'running'} />
            </div>
            {result && result.checks.length > 0 ? (
              <ul className="check-list">
                {result.checks.map((c) => (
                  <CheckRow key={c.id} check={c} />
                ))}
              </ul>
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}

function RoleStatus({ result, step, running }: { result: RoleResult | undefined; step: string | undefined; running: boolean }) {
  if (result) {
    if (result.inherits) return <span className="pill">Same as the main model</span>;
    return <span className={`pill status-${result.status}`}>{STATUS_WORDS[result.status]}</span>;
  }
  if (step) {
    return (
      <span className="checkup-step" role="status">
        {step}…
      </span>
    );
  }
  return <span className="muted">{running ? 'Waiting' : 'Not checked'}</span>;
}

function CheckRow({ check }: { check: Check }) {
  // "Follows the main model" is a note on why the role changed, not a check with a result.
  const note = check.id === 'followed';
  return (
    <li className={`check status-${check.status}`}>
      <p>
        <strong>{note ? `${check.label}.` : `${check.label}: ${STATUS_WORDS[check.status]}.`}</strong>{' '}
        {check.detail}
      </p>
      {check.fix ? <p className="check-fix">{check.fix}</p> : null}
      {check.status !== 'pass' ? <FixButton action={check.action} /> : null}
    </li>
  );
}
