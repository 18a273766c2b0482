// One item of the conversation: the person's message, or a whole assistant turn (thinking, text
// as markdown, tool cards, words added while it ran, and what the reply had in mind), with Copy
// under every finished reply, Regenerate under the last one, and "< 2 / 3 >" on an answer that
// was regenerated.
import type { ApprovalDecision } from '../../api';
import type { AssistantItem, Item, Segment } from './conversation';
import { CopyButton } from './CopyButton';
import { Markdown } from './Markdown';
import { MemorySources } from './MemorySources';
import { ThinkingBlock } from './ThinkingBlock';
import { ToolCard } from './ToolCard';
import { ErrorActions } from '../../components/ErrorActions';

const STEER_STATUS: Record<string, string> = {
  waiting: 'Waiting for the next step',
  sent: 'Added to the reply',
  not_sent: 'Not sent',
};

function SegmentView({ segment, onAnswer }: { segment: Segment; onAnswer: (id: string, d: ApprovalDecision) => Promise<void> }) {
  switch (segment.kind) {
    case 'text':
      return <Markdown text={segment.text} />;
    case 'tool':
      return <ToolCard tool={segment.tool} onAnswer={onAnswer} />;
    case 'steer':
      return (
        <div className={`chat-steer steer-${segment.status}`} data-testid="steer">
          <span className="chat-steer-text">{segment.text}</span>
          <span className="chat-steer-status">{STEER_STATUS[segment.status]}</span>
        </div>
      );
  }
}

/** The words of a reply, as its markdown, for Copy. */
export function replyText(item: AssistantItem): string {
  return item.segments
    .flatMap((s) => (s.kind === 'text' ? [s.text.trim()] : []))
    .filter((t) => t !== '')
    .join('\n\n');
}

/** "< 2 / 3 >": flips between the versions of a regenerated answer. */
function VersionFlipper({ item, onShowVersion }: { item: AssistantItem; onShowVersion?: (index: number) => void }) {
  const count = item.versions.length;
  if (count < 2) return null;
  const at = item.version_index;
  return (
    <span className="chat-versions" role="group" aria-label="Versions of this answer">
      <button
        type="button"
        className="btn btn-quiet chat-mini-btn"
        aria-label="Previous version"
        disabled={!onShowVersion || at <= 0}
        onClick={() => onShowVersion?.(at - 1)}
      >
        ‹
      </button>
      <span className="chat-versions-count" data-testid="version-count">{`${at + 1} / ${count}`}</span>
      <button
        type="button"
        className="btn btn-quiet chat-mini-btn"
        aria-label="Next version"
        disabled={!onShowVersion || at >= count - 1}
        onClick={() => onShowVersion?.(at + 1)}
      >
        ›
      </button>
    </span>
  );
}

export function MessageView({
  item,
  onAnswer,
  onRetry,
  onRegenerate,
  onShowVersion,
}: {
  item: Item;
  onAnswer: (approvalId: string, decision: ApprovalDecision) => Promise<void>;
  /** Asks again after an error ("Try again"). */
  onRetry?: () => void;
  /** Asks for a new answer to the last message in place of this one (only on the last reply). */
  onRegenerate?: () => void;
  /** Shows another version of this answer (left out while a reply is written). */
  onShowVersion?: (index: number) => void;
}) {
  if (item.kind === 'user') {
    return (
      <div className={item.not_sent ? 'chat-user not-sent' : 'chat-user'} data-testid="user-message">
        <div className="chat-text">{item.text}</div>
        {item.attachments.length > 0 ? (
          <ul className="chips" aria-label="Attached files">
            {item.attachments.map((name) => (
              <li key={name} className="chip">
                {name}
              </li>
            ))}
          </ul>
        ) : null}
        {item.not_sent ? <span className="chat-steer-status">Not sent</span> : null}
      </div>
    );
  }
  const empty = item.segments.length === 0 && !item.thinking && !item.error;
  if (empty && !item.running && !item.cancelled) return null;
  return (
    <div className="chat-assistant" data-testid="assistant-message" aria-busy={item.running}>
      <ThinkingBlock text={item.thinking} running={item.running} />
      {item.segments.map((segment, i) => (
        <SegmentView key={segment.kind === 'tool' ? segment.tool.call_id : `${segment.kind}-${i}`} segment={segment} onAnswer={onAnswer} />
      ))}
      {empty && item.running ? (
        <p className="muted chat-waiting" role="status">
          Thinking…
        </p>
      ) : null}
      {item.error ? (
        <div className="notice notice-error" role="alert">
          <p>{item.error}</p>
          <ErrorActions sentence={item.error} onRetry={onRetry} />
        </div>
      ) : null}
      {item.cancelled ? <p className="muted chat-stopped">Stopped.</p> : null}
      {item.notice ? (
        <p className="muted chat-notice" role="alert">
          {`Couldn't regenerate: ${item.notice}`}
        </p>
      ) : null}
      {!item.running ? <MemorySources sources={item.memory_sources} /> : null}
      {!item.running && (replyText(item) !== '' || (onRegenerate && !item.error) || item.versions.length > 1) ? (
        <div className="chat-reply-actions" role="group" aria-label="This reply">
          <VersionFlipper item={item} onShowVersion={onShowVersion} />
          {replyText(item) !== '' ? <CopyButton text={() => replyText(item)} label="Copy reply" /> : null}
          {onRegenerate && !item.error ? (
            <button type="button" className="btn btn-quiet chat-mini-btn" onClick={onRegenerate} title="Write a new answer in place of this one">
              Regenerate
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
