// How full the chat is for the model (from `usage`), and the plain warning from 85%.
import type { Usage } from './conversation';

export function ContextMeter({ usage }: { usage: Usage | null }) {
  if (!usage) return null;
  const percent = usage.context_percent;
  return (
    <div className="chat-context">
      {percent !== null ? (
        <div className="context-meter" data-testid="context-meter">
          <meter min={0} max={100} value={percent} aria-label="How full this chat is" />
          <span className="muted">
            {percent}% of what {usage.model} reads at once
          </span>
        </div>
      ) : null}
      {usage.context_warning ? (
        <div className="notice notice-warn" role="status">
          <p>{usage.context_warning}</p>
        </div>
      ) : null}
    </div>
  );
}
