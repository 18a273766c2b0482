// "Make this a rule?": words from the chat that read like a lasting "never" or "ask me first",
// offered as a rule. Only the person's click makes it one.
import type { RuleDecision, RuleProposal } from '../../api';
import { useDecideRuleProposal } from './queries';

export function RuleProposalCard({ proposal }: { proposal: RuleProposal }) {
  const decide = useDecideRuleProposal();
  const send = (decision: RuleDecision) => decide.mutate({ id: proposal.id, decision });
  return (
    <div className="card rule-card" role="group" aria-label="Make this a rule?" data-testid="rule-proposal">
      <h3>Make this a rule?</h3>
      <blockquote className="rule-said">“{proposal.said}”</blockquote>
      <p>{proposal.rule === 'never' ? 'Sentient would never use:' : 'Sentient would ask you first before using:'}</p>
      <ul className="chips">
        {proposal.targets.map((t) => (
          <li key={t.key} className="chip">
            {t.label}
          </li>
        ))}
      </ul>
      {proposal.status === 'pending' ? (
        <div className="approval-actions">
          <button type="button" className="btn btn-primary" disabled={decide.isPending} onClick={() => send('accept')}>
            Make it a rule
          </button>
          <button type="button" className="btn btn-quiet" disabled={decide.isPending} onClick={() => send('decline')}>
            Not now
          </button>
        </div>
      ) : (
        <p className="approval-outcome">
          {proposal.status === 'accepted'
            ? 'Saved as a rule. You can change it in Settings > Approvals & safety.'
            : 'Not made a rule.'}
        </p>
      )}
      {decide.error ? (
        <p className="chat-error" role="alert">
          {decide.error.detail}
        </p>
      ) : null}
    </div>
  );
}
