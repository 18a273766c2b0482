// "Script": a script job's watch (contract section 16). The code runs on the task's schedule
// without the model; the card says when it acts and what it then does, what the last check found
// or why it failed, and lets the person edit the code (the engine checks that it compiles before
// saving), change the condition and what follows, and Test it once without changing anything.
import { useState } from 'react';
import { toApiError, type ScriptCondition, type ScriptThen, type Task } from '../../../api';
import { useApi } from '../../../api/context';
import { ErrorNotice } from '../../../components/Page';
import { ReadableValue, ScriptOutcome, type ScriptResult } from '../../chat';
import type { useTaskAction } from '../queries';
import { taskTime } from '../words';

type Action = ReturnType<typeof useTaskAction>;

export const CONDITION_WORDS: Record<ScriptCondition, string> = {
  changed: 'When what it finds changes',
  alert: 'When the script raises an alert',
  every_run: 'Every time it finds something',
};

export const THEN_WORDS: Record<ScriptThen, string> = {
  notify: 'Tell me',
  run: 'Let the assistant work on it',
};

type Test = { state: 'running' } | { state: 'done'; run: ScriptResult } | { state: 'failed'; error: string };

export function ScriptJobCard({ task, action }: { task: Task; action: Action }) {
  const api = useApi();
  const script = task.script;
  const [editing, setEditing] = useState(false);
  const [code, setCode] = useState('');
  const [condition, setCondition] = useState<ScriptCondition>('changed');
  const [then, setThen] = useState<ScriptThen>('notify');
  const [test, setTest] = useState<Test | null>(null);
  if (!script) return null;

  const startEditing = () => {
    action.reset();
    setCode(script.code);
    setCondition(script.condition);
    setThen(script.then);
    setTest(null);
    setEditing(true);
  };
  const runTest = () => {
    setTest({ state: 'running' });
    api.testTaskScript(task.task_id, editing ? code : null).then(
      (run) => setTest({ state: 'done', run }),
      (e: unknown) => setTest({ state: 'failed', error: toApiError(e).detail }),
    );
  };
  const checked = script.last_run_at ? taskTime(script.last_run_at, task.schedule?.timezone) : null;

  return (
    <section className="task-section script-job-card" aria-labelledby={`script-title-${task.task_id}`} data-testid="script-card">
      <div className="card-head">
        <h3 id={`script-title-${task.task_id}`}>Script</h3>
        {!editing ? (
          <div className="card-tools">
            <button type="button" className="btn btn-quiet btn-small" onClick={startEditing}>
              Edit
            </button>
          </div>
        ) : null}
      </div>
      <p className="muted">Checks on the task's schedule with a short script, without the model. Its tool uses may only look things up.</p>

      {editing ? (
        <form
          className="script-editor"
          onSubmit={(e) => {
            e.preventDefault();
            action.mutate({ kind: 'patch', patch: { script: { code, condition, then } } }, { onSuccess: () => setEditing(false) });
          }}
        >
          <textarea
            className="script-input"
            aria-label="Script code"
            spellCheck={false}
            rows={Math.min(18, Math.max(6, code.split('\n').length + 1))}
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
          <div className="script-choices">
            <label>
              Act
              <select value={condition} onChange={(e) => setCondition(e.target.value as ScriptCondition)}>
                {Object.entries(CONDITION_WORDS).map(([value, words]) => (
                  <option key={value} value={value}>
                    {words}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Then
              <select value={then} onChange={(e) => setThen(e.target.value as ScriptThen)}>
                {Object.entries(THEN_WORDS).map(([value, words]) => (
                  <option key={value} value={value}>
                    {words}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <ErrorNotice error={action.error} prefix="Couldn't save the script." />
          <div className="task-actions">
            <button type="submit" className="btn btn-primary" disabled={action.isPending || code.trim() === ''}>
              Save
            </button>
            <button type="button" className="btn btn-quiet" onClick={runTest} disabled={test?.state === 'running' || code.trim() === ''}>
              {test?.state === 'running' ? 'Testing…' : 'Test'}
            </button>
            <button
              type="button"
              className="btn btn-quiet"
              onClick={() => {
                action.reset();
                setEditing(false);
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <dl className="script-facts">
            <dt>Acts</dt>
            <dd data-testid="script-condition">{CONDITION_WORDS[script.condition]}</dd>
            <dt>Then</dt>
            <dd data-testid="script-then">{THEN_WORDS[script.then]}</dd>
          </dl>
          <pre className="script-code" data-testid="script-job-code">
            <code>{script.code}</code>
          </pre>
          {script.last_error ? (
            <div className="notice notice-error" role="alert" data-testid="script-last-error">
              <p>The last check failed{checked ? ` (${checked})` : ''}: {script.last_error}</p>
            </div>
          ) : null}
          {script.last_result !== null && script.last_result !== undefined ? (
            <div className="tool-section" data-testid="script-last-result">
              <h4>Last found{checked && !script.last_error ? ` · ${checked}` : ''}</h4>
              <ReadableValue value={script.last_result} />
            </div>
          ) : !script.last_error ? (
            <p className="muted" data-testid="script-not-checked">
              {checked ? `Checked ${checked}; it found nothing to keep yet.` : 'Not checked yet.'}
            </p>
          ) : null}
          <div className="task-actions">
            <button type="button" className="btn btn-quiet" onClick={runTest} disabled={test?.state === 'running'}>
              {test?.state === 'running' ? 'Testing…' : 'Test'}
            </button>
          </div>
        </>
      )}

      {test?.state === 'done' ? (
        <div className="tool-section script-test" aria-live="polite" data-testid="script-test">
          <h4>Test run (nothing was saved or sent)</h4>
          <ScriptOutcome run={test.run} />
        </div>
      ) : test?.state === 'failed' ? (
        <p className="tool-error" role="alert" data-testid="script-test-error">
          {test.error}
        </p>
      ) : null}
    </section>
  );
}
