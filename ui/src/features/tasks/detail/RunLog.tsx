// A run's progress log as it happens: what it started, each tool it used with what it sent and
// what came back, its answer and any error. Long runs can show their whole log.
import { useState } from 'react';
import type { ProgressUpdate, Run } from '../../../api';
import { useRunEvents } from '../queries';
import { ErrorNotice } from '../../../components/Page';
import { toolLabel } from '../../chat';
import { clockTime } from '../words';

const EMBEDDED = 200;

function LogLine({ update, timezone }: { update: ProgressUpdate; timezone: string | null }) {
  const m = update.message;
  const tool = m.tool_name ? toolLabel(m.tool_name) : '';
  let body;
  switch (m.type) {
    case 'tool_call':
      body = (
        <>
          <span className="log-what">Using {tool || 'a tool'}</span>
          {m.parameters && Object.keys(m.parameters).length > 0 ? (
            <pre className="log-detail">{JSON.stringify(m.parameters, null, 2)}</pre>
          ) : null}
        </>
      );
      break;
    case 'tool_result':
      body = (
        <>
          <span className="log-what">{m.is_error ? `${tool || 'The tool'} failed` : `${tool || 'The tool'} answered`}</span>
          {m.result ? <pre className="log-detail">{m.result}</pre> : null}
        </>
      );
      break;
    case 'final_answer':
      body = (
        <>
          <span className="log-what">Answer</span> <span>{m.content}</span>
        </>
      );
      break;
    default:
      body = <span>{m.content}</span>;
  }
  return (
    <li className={`log-line log-${m.type}${m.is_error ? ' log-failed' : ''}`} data-testid="log-line">
      <time className="log-time" dateTime={update.timestamp}>
        {clockTime(update.timestamp, timezone)}
      </time>
      <div className="log-body">{body}</div>
    </li>
  );
}

export function RunLog({ taskId, run, timezone = null }: { taskId: string; run: Run; timezone?: string | null }) {
  const [whole, setWhole] = useState(false);
  const events = useRunEvents(taskId, run.run_id, whole);
  const lines = whole && events.data ? events.data : run.progress_updates;
  return (
    <div className="run-log">
      {run.progress_updates.length >= EMBEDDED && !whole ? (
        <button type="button" className="btn btn-quiet" onClick={() => setWhole(true)}>
          Show the whole log
        </button>
      ) : null}
      <ErrorNotice error={events.error} prefix="Couldn't load the whole log." />
      {lines.length === 0 ? (
        <p className="muted">Nothing yet.</p>
      ) : (
        <ol className="log-lines" aria-label="Progress" aria-live="polite">
          {lines.map((u, i) => (
            <LogLine key={`${u.timestamp}-${i}`} update={u} timezone={timezone} />
          ))}
        </ol>
      )}
    </div>
  );
}
