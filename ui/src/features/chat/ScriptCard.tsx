// A script the assistant ran (`execute_code`, contract section 11): what it was for and its code,
// its output while it runs, then what it printed, returned and saved, or the one sentence saying
// why it didn't work. Pictures it saved show as pictures. "Run again" runs the same code once more
// with look-ups only (`POST /api/sandbox/run`), shown under the first run.
import { useState } from 'react';
import { toApiError, type ApprovalDecision } from '../../api';
import { useApi } from '../../api/context';
import { ApprovalCard } from './ApprovalCard';
import { CopyButton } from './CopyButton';
import { OutputPicture, pictureOf } from './OutputPicture';
import { ReadableValue } from './ReadableValue';
import type { ToolView } from './conversation';

export const SCRIPT_TOOL = 'execute_code';

/** The contract's SandboxResult, as a script's tool result carries it. */
export type ScriptResult = {
  ok: boolean;
  backend: string;
  stdout: string;
  stderr: string;
  result: unknown;
  files_created: string[];
  tool_calls: number;
  duration_ms: number;
  error: string | null;
};

/** The run's result when `value` has the SandboxResult's shape; anything else (a refusal) is null. */
export function scriptResultOf(value: unknown): ScriptResult | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Partial<ScriptResult>;
  if (typeof v.ok !== 'boolean' || typeof v.stdout !== 'string' || typeof v.stderr !== 'string') return null;
  return {
    ok: v.ok,
    backend: typeof v.backend === 'string' ? v.backend : '',
    stdout: v.stdout,
    stderr: v.stderr,
    result: v.result ?? null,
    files_created: Array.isArray(v.files_created) ? v.files_created.filter((f): f is string => typeof f === 'string') : [],
    tool_calls: typeof v.tool_calls === 'number' ? v.tool_calls : 0,
    duration_ms: typeof v.duration_ms === 'number' ? v.duration_ms : 0,
    error: typeof v.error === 'string' && v.error ? v.error : null,
  };
}

function argumentText(args: unknown, key: 'code' | 'purpose'): string {
  if (!args || typeof args !== 'object') return '';
  const value = (args as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : '';
}

/** "2 tool uses · 1.4 s": how much the run did and how long it took. */
export function scriptSummary(run: ScriptResult): string {
  const uses = run.tool_calls === 1 ? '1 tool use' : `${run.tool_calls} tool uses`;
  const seconds = run.duration_ms < 100 ? 'under 0.1 s' : `${(run.duration_ms / 1000).toFixed(1)} s`;
  return `${uses} · ${seconds}`;
}

function refusalText(value: unknown): string {
  if (value && typeof value === 'object' && 'error' in value) return String((value as { error: unknown }).error);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** What a script run printed, returned and saved, or why it failed (also a task script's Test). */
export function ScriptOutcome({ run }: { run: ScriptResult }) {
  // Without result(), the printed text is the result; it is shown once.
  const returned = run.result !== null && run.result !== run.stdout;
  return (
    <>
      {run.error ? (
        <p className="tool-error" data-testid="script-error">
          {run.error}
        </p>
      ) : null}
      {run.stdout ? (
        <div className="tool-section">
          <h4>What it printed</h4>
          <pre className="tool-result" data-testid="script-stdout">
            {run.stdout}
          </pre>
        </div>
      ) : null}
      {run.stderr ? (
        <div className="tool-section">
          <h4>Warnings and errors it printed</h4>
          <pre className="tool-result" data-testid="script-stderr">
            {run.stderr}
          </pre>
        </div>
      ) : null}
      {returned ? (
        <div className="tool-section" data-testid="tool-result">
          <h4>What it returned</h4>
          <ReadableValue value={run.result} />
        </div>
      ) : null}
      {run.files_created.length > 0 ? (
        <div className="tool-section" data-testid="script-files">
          <h4>Files it saved</h4>
          <ul className="script-files">
            {run.files_created.map((file) => {
              const picture = pictureOf({ file });
              return <li key={file}>{picture ? <OutputPicture file={picture.file} title={picture.title} /> : <code>{file}</code>}</li>;
            })}
          </ul>
        </div>
      ) : null}
      {!run.ok && !run.error && !run.stdout && !run.stderr ? <p className="tool-error">The script didn't finish.</p> : null}
      <p className="script-summary">{scriptSummary(run)}</p>
    </>
  );
}

type Rerun = { state: 'running' } | { state: 'done'; run: ScriptResult } | { state: 'failed'; error: string };

/** "Run again" and what it gave. Its tool calls may only look things up, so it never changes anything. */
function RunAgain({ code }: { code: string }) {
  const api = useApi();
  const [rerun, setRerun] = useState<Rerun | null>(null);
  const start = () => {
    setRerun({ state: 'running' });
    api.runScript(code).then(
      (run) => setRerun({ state: 'done', run }),
      (e: unknown) => setRerun({ state: 'failed', error: toApiError(e).detail }),
    );
  };
  return (
    <div className="script-again" data-testid="script-again">
      <button
        type="button"
        className="btn btn-quiet chat-mini-btn"
        onClick={start}
        disabled={rerun?.state === 'running'}
        title="Runs the same script again; its tool uses may only look things up"
      >
        {rerun?.state === 'running' ? 'Running again…' : 'Run again'}
      </button>
      {rerun?.state === 'done' ? (
        <div className="tool-section" aria-live="polite">
          <h4>Ran again</h4>
          <ScriptOutcome run={rerun.run} />
        </div>
      ) : rerun?.state === 'failed' ? (
        <p className="tool-error" role="alert">
          {rerun.error}
        </p>
      ) : null}
    </div>
  );
}

export function ScriptCard({
  tool,
  onAnswer,
}: {
  tool: ToolView;
  onAnswer: (approvalId: string, decision: ApprovalDecision) => Promise<void>;
}) {
  const code = argumentText(tool.arguments, 'code');
  const purpose = argumentText(tool.arguments, 'purpose').trim();
  const waiting = tool.approval !== null && !tool.approval.outcome;
  const finished = tool.result !== undefined;
  const run = finished ? scriptResultOf(tool.result) : null;
  const failed = finished && (tool.is_error || !run || !run.ok);
  const [label, tone] = tool.declined
    ? ['Declined', 'declined']
    : finished
      ? failed
        ? ["Didn't work", 'error']
        : ['Done', 'done']
      : waiting
        ? ['Waiting for your OK', 'waiting']
        : ['Running…', 'running'];
  return (
    <div className={`tool-card script-card tool-${tone}`} data-testid="tool-card">
      <div className="tool-head">
        <strong>{purpose ? `Script: ${purpose}` : 'Script'}</strong>
        <span className="tool-status">{label}</span>
      </div>
      {code ? (
        // While it waits for an OK, the code is open to read before answering.
        <details className="tool-args" open={waiting || undefined}>
          <summary>The script</summary>
          <pre data-testid="script-code">
            <code>{code}</code>
          </pre>
          <CopyButton text={() => code} label="Copy the script" />
        </details>
      ) : null}
      {!finished && tool.progress.length > 0 ? (
        <pre className="tool-progress" aria-label="Output so far">
          {tool.progress.map((chunk) => (chunk.endsWith('\n') ? chunk : `${chunk}\n`)).join('')}
        </pre>
      ) : null}
      {tool.approval ? <ApprovalCard approval={tool.approval} onAnswer={(d) => onAnswer(tool.approval?.approval_id ?? '', d)} /> : null}
      {tool.declined ? (
        <p className="tool-declined">You declined this, so it didn't run.</p>
      ) : run ? (
        <>
          <ScriptOutcome run={run} />
          {code ? <RunAgain code={code} /> : null}
        </>
      ) : finished ? (
        <p className="tool-error" data-testid="tool-result">
          {refusalText(tool.result)}
        </p>
      ) : null}
    </div>
  );
}
