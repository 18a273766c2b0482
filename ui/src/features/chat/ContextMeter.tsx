// How full the chat is for the model (from `usage`), shown only once the contract's warning
// applies ("This chat is getting long…"): a percentage after every reply is noise.
import type { Usage } from './conversation';

export function ContextMeter({ usage }: { usage: Usage | null }) {
  if (!usage?.context_warning) return null;
  const percent = usage.context_percent;
  return (
    <div className="chat-context">
      <div className="notice notice-warn" role="status">
        <p>{usage.context_warning}</p>
        {percent !== null ? (
          <div className="context-meter" data-testid="context-meter">
            <meter min={0} max={100} value={percent} aria-label="How full this chat is" />
            <span className="muted">{percent}% full</span>
          </div>
        ) : null}
      </div>
    </div>
  );
}
