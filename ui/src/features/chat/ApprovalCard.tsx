// A question before a tool runs: what, how risky, on what, why, and the three answers. Once
// answered, the buttons give way to the outcome.
import { useState } from 'react';
import { toApiError, type ApprovalDecision } from '../../api';
import type { ApprovalView } from './conversation';
import { toolLabel } from './conversation';

const RISK_WORDS: Record<string, string> = {
  read: 'Looks something up',
  write: 'Changes something',
  send: 'Sends something',
  exec: 'Runs a program',
};

/** Why it asks, from the engine's reason code. */
const REASONS: Record<string, string> = {
  mode: 'Your approval settings ask before this kind of action.',
  rule: 'You set this to ask every time.',
  outside_content: 'This chat read content from outside, so it checks with you first.',
  purchase: 'This looks like a purchase, so it always asks.',
  pending_rule: 'You may want a rule about this, so it asks until you decide.',
};

function reasonText(reason: string): string {
  // A code we don't know yet says nothing useful; a sentence is shown as is.
  return REASONS[reason] ?? (reason.includes(' ') ? reason : '');
}

const OUTCOMES: Record<string, string> = {
  allow: 'You allowed this once.',
  allow_session: 'You allowed this for the rest of this chat.',
  deny: 'You said no.',
  expired: 'This question had already ended.',
};

export function ApprovalCard({
  approval,
  onAnswer,
}: {
  approval: ApprovalView;
  onAnswer: (decision: ApprovalDecision) => Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const answer = async (decision: ApprovalDecision) => {
    setBusy(true);
    setError(null);
    try {
      await onAnswer(decision);
    } catch (e) {
      setError(toApiError(e).detail);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="approval-card" role="group" aria-label="Sentient asks for your OK" data-testid="approval-card">
      <p className="approval-title">
        <strong>{toolLabel(approval.name)}</strong> needs your OK
      </p>
      <dl className="facts approval-facts">
        <dt>What it does</dt>
        <dd>{approval.risk_label || RISK_WORDS[approval.risk] || approval.risk}</dd>
        {approval.target ? (
          <>
            <dt>On</dt>
            <dd>{approval.target}</dd>
          </>
        ) : null}
      </dl>
      {reasonText(approval.reason) ? <p className="approval-reason">{reasonText(approval.reason)}</p> : null}
      {approval.untrusted ? (
        <div className="notice notice-warn">
          <p>{approval.untrusted}</p>
        </div>
      ) : null}
      {approval.outcome ? (
        <p className="approval-outcome" data-testid="approval-outcome">
          {OUTCOMES[approval.outcome]}
        </p>
      ) : (
        <div className="approval-actions">
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void answer('allow')}>
            Allow
          </button>
          {/* A chat that read outside content asks every time. */}
          {approval.untrusted ? null : (
            <button type="button" className="btn" disabled={busy} onClick={() => void answer('allow_session')}>
              Allow for this chat
            </button>
          )}
          <button type="button" className="btn btn-quiet" disabled={busy} onClick={() => void answer('deny')}>
            Deny
          </button>
        </div>
      )}
      {error ? (
        <p className="chat-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
