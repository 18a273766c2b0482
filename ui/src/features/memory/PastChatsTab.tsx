// Past chats: summaries of older parts of your chats, newest first. A chat that read outside
// content (a web page, an email) is marked: its summary is shown here but kept out of others.
import { EmptyState, ErrorNotice, Loading } from '../../components/Page';
import { MemoryIcon } from '../../components/icons';
import { asError, useMemorySummaries } from './queries';

export const EMPTY_PAST = 'No summaries yet. Older parts of long chats are summarized here.';

export function PastChatsTab() {
  const summaries = useMemorySummaries(true);
  if (summaries.isPending) return <Loading label="Loading past chats…" />;
  if (summaries.error)
    return <ErrorNotice error={asError(summaries.error)} prefix="Couldn't load past chats." onRetry={() => void summaries.refetch()} />;
  if (summaries.data.length === 0)
    return (
      <EmptyState icon={<MemoryIcon size={28} />} title="No past chats">
        <p>{EMPTY_PAST}</p>
      </EmptyState>
    );
  return (
    <ul className="memory-list" aria-label="Past chats">
      {summaries.data.map((s) => (
        <li key={s.id} className="card memory-fact" data-testid="summary">
          <p className="memory-content">{s.content}</p>
          <p className="muted memory-meta">
            {new Date(s.start_at).toLocaleString()} – {new Date(s.end_at).toLocaleTimeString()}
            {s.session_id ? (
              <>
                {' · '}
                <a href={`#/chat?session=${encodeURIComponent(s.session_id)}`}>Open the chat</a>
              </>
            ) : null}
          </p>
          {s.untrusted ? (
            <p className="memory-mark" data-testid="summary-mark">
              This chat read content from {s.untrusted}; it stays out of your other chats.
            </p>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
