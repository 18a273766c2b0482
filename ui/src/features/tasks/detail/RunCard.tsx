// One run: when and how it went, its live log, the answer it ended with (and the links and
// files it made), its error, and Cancel or Retry.
import { useEffect, useRef } from 'react';
import type { Run } from '../../../api';
import type { useTaskAction } from '../queries';
import { useModelBusy } from '../queries';
import { inTaskZone, modelWaitWords, RUN_STATUS_WORDS, zoneNote } from '../words';
import { RunLog } from './RunLog';
import { ErrorActions } from '../../../components/ErrorActions';

type Action = ReturnType<typeof useTaskAction>;

export function RunCard({
  taskId,
  timezone = null,
  run,
  action,
  highlighted = false,
}: {
  taskId: string;
  /** The task's time zone: the run's times are shown in it, like the rest of the task. */
  timezone?: string | null;
  run: Run;
  action: Action;
  highlighted?: boolean;
}) {
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (highlighted) ref.current?.scrollIntoView?.({ block: 'nearest' });
  }, [highlighted]);
  const live = run.status === 'processing' || run.status === 'waiting_for_user';
  const retryable = run.status === 'error' || run.status === 'cancelled';
  const result = run.result;
  const busy = useModelBusy(run.status === 'processing');
  const waiting = run.status === 'processing' ? modelWaitWords(busy) : null;
  return (
    <li
      ref={ref}
      className={`run-card run-${run.status}${highlighted ? ' run-highlight' : ''}`}
      data-testid="run-card"
      data-run-id={run.run_id}
      aria-current={highlighted ? 'true' : undefined}
    >
      <header className="run-header">
        <strong data-testid="run-status">{waiting ?? RUN_STATUS_WORDS[run.status]}</strong>
        <span className="muted" data-testid="run-times">
          Started {inTaskZone(run.execution_start_time ?? run.created_at, timezone)}
          {run.finished_at ? ` · ended ${inTaskZone(run.finished_at, timezone)}` : ''}
          {zoneNote(timezone)}
          {run.retry_of ? ' · a retry' : ''}
        </span>
        <span className="run-buttons">
          {live ? (
            <button
              type="button"
              className="btn btn-quiet"
              disabled={action.isPending}
              onClick={() => action.mutate({ kind: 'cancel-run', runId: run.run_id })}
            >
              Cancel
            </button>
          ) : null}
          {retryable ? (
            <button
              type="button"
              className="btn"
              disabled={action.isPending}
              onClick={() => action.mutate({ kind: 'retry-run', runId: run.run_id })}
            >
              Retry
            </button>
          ) : null}
        </span>
      </header>
      <RunLog taskId={taskId} run={run} timezone={timezone} />
      {result?.summary ? (
        <div className="run-result" data-testid="run-result">
          <h4>Result</h4>
          <p className="run-summary">{result.summary}</p>
          {result.links_found.length + result.links_created.length > 0 ? (
            <ul className="run-links" aria-label="Links">
              {[...result.links_created, ...result.links_found].map((l, i) => (
                <li key={i}>
                  <a href={l.url} target="_blank" rel="noreferrer">
                    {l.description || l.url}
                  </a>
                </li>
              ))}
            </ul>
          ) : null}
          {result.files_created.length > 0 ? (
            <p className="muted">Files made: {result.files_created.map((f) => f.filename).join(', ')}</p>
          ) : null}
          {result.tools_used.length > 0 ? <p className="muted">Used: {result.tools_used.join(', ')}</p> : null}
        </div>
      ) : null}
      {run.error ? (
        <div className="notice notice-error" data-testid="run-error">
          <p>{run.error}</p>
          <ErrorActions sentence={run.error} />
        </div>
      ) : null}
    </li>
  );
}
