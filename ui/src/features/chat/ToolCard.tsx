// One tool call in a reply. A finished call is one collapsed line ("Used Time now") that opens
// to what it was asked and what it found, in readable form; while it works, waits for an OK, or
// when it failed or was declined, the card stays open; a question (approval) stays open with
// what it wants to do until it is answered. A saved picture shows as the picture; a script has
// its own card (ScriptCard).
import type { ApprovalDecision } from '../../api';
import { NeedsYouCard } from '../browser';
import { ApprovalCard } from './ApprovalCard';
import { CommandResult } from './CommandResult';
import { CommandStop, TERMINAL_TOOL } from './CommandStop';
import { OutputPicture, pictureOf } from './OutputPicture';
import { ReadableValue } from './ReadableValue';
import { SCRIPT_TOOL, ScriptCard } from './ScriptCard';
import type { ToolView } from './conversation';
import { toolLabel } from './conversation';

const MAX_RESULT_CHARS = 1200;

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}…` : text;
}

function errorText(result: unknown): string {
  if (result && typeof result === 'object' && 'error' in result) return asText((result as { error: unknown }).error);
  return asText(result);
}

/** A browser step only the person may do: the result's `needs_user` reason. */
function needsUser(result: unknown): string | null {
  if (result && typeof result === 'object' && 'needs_user' in result) {
    const reason = (result as { needs_user: unknown }).needs_user;
    return typeof reason === 'string' && reason ? reason : null;
  }
  return null;
}

function status(tool: ToolView): { label: string; tone: string } {
  if (tool.declined) return { label: 'Declined', tone: 'declined' };
  if (tool.result !== undefined && needsUser(tool.result)) return { label: 'Needs you', tone: 'waiting' };
  if (tool.result !== undefined) return tool.is_error ? { label: "Didn't work", tone: 'error' } : { label: 'Done', tone: 'done' };
  if (tool.approval && !tool.approval.outcome) return { label: 'Waiting for your OK', tone: 'waiting' };
  return { label: 'Working…', tone: 'running' };
}

export function ToolCard({
  tool,
  onAnswer,
}: {
  tool: ToolView;
  onAnswer: (approvalId: string, decision: ApprovalDecision) => Promise<void>;
}) {
  if (tool.name === SCRIPT_TOOL) return <ScriptCard tool={tool} onAnswer={onAnswer} />;
  const { label, tone } = status(tool);
  const args = asText(tool.arguments);
  const picture = tool.result !== undefined && !tool.is_error ? pictureOf(tool.result) : null;
  const hasArgs = args !== '' && args !== '{}';
  const waiting = tool.approval !== null && !tool.approval.outcome;
  // Done without a question asked: one line that opens to the details. A card that asked for an
  // OK stays open, so its answer stays in view.
  if (tool.result !== undefined && !tool.is_error && !tool.declined && !picture && !tool.approval && !needsUser(tool.result)) {
    return (
      <details className={`tool-card tool-line tool-${tone}`} data-testid="tool-card">
        <summary className="tool-head">
          <strong>Used {toolLabel(tool.name)}</strong>
          <span className="tool-status">{label}</span>
        </summary>
        {hasArgs ? (
          <div className="tool-section">
            <h4>What it was asked</h4>
            <ReadableValue value={tool.arguments} />
          </div>
        ) : null}
        <div className="tool-section" data-testid="tool-result">
          <h4>What it found</h4>
          {tool.name === TERMINAL_TOOL ? <CommandResult result={tool.result} /> : <ReadableValue value={tool.result} />}
        </div>
      </details>
    );
  }
  return (
    <div className={`tool-card tool-${tone}`} data-testid="tool-card">
      <div className="tool-head">
        <strong>{toolLabel(tool.name)}</strong>
        <span className="tool-status">{label}</span>
      </div>
      {hasArgs ? (
        // While it waits for an OK, what it wants to do is open to read before answering.
        <details className="tool-args" open={waiting || undefined}>
          <summary>What it was asked</summary>
          <ReadableValue value={tool.arguments} />
        </details>
      ) : null}
      {tool.frame && tool.result === undefined ? (
        // The browser's page as it is now, while the tool runs.
        <img className="tool-frame" src={tool.frame} alt="The page the assistant is using" data-testid="tool-frame" />
      ) : null}
      {tool.name === TERMINAL_TOOL && tool.result === undefined && !waiting && !tool.declined ? <CommandStop callId={tool.call_id} /> : null}
      {tool.progress.length > 0 ? (
        <pre className="tool-progress" aria-label="Progress">
          {tool.progress.join('\n')}
        </pre>
      ) : null}
      {tool.approval ? <ApprovalCard approval={tool.approval} onAnswer={(d) => onAnswer(tool.approval?.approval_id ?? '', d)} /> : null}
      {tool.declined ? (
        <p className="tool-declined">You declined this, so it didn't run.</p>
      ) : tool.result !== undefined && needsUser(tool.result) ? (
        <NeedsYouCard reason={needsUser(tool.result) ?? ''} />
      ) : tool.result !== undefined ? (
        tool.is_error ? (
          <p className="tool-error" data-testid="tool-result">
            {errorText(tool.result)}
          </p>
        ) : picture ? (
          <OutputPicture file={picture.file} title={picture.title} />
        ) : (
          <div className="tool-section" data-testid="tool-result">
            <h4>What it found</h4>
            {tool.name === TERMINAL_TOOL ? <CommandResult result={tool.result} /> : <ReadableValue value={tool.result} />}
          </div>
        )
      ) : null}
    </div>
  );
}
