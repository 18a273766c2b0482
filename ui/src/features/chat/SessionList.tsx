// The chats: a search box (words found in any chat, with the matching words marked), New chat,
// and every chat newest first.
import { useState } from 'react';
import type { Session } from '../../api';
import { useSessionSearch, useSessions } from '../../api/queries';
import { ErrorNotice, Loading } from '../../components/Page';
import { chatTitle, SessionRow } from './SessionRow';

/** The engine marks matching words with [ and ]. */
function Snippet({ text }: { text: string }) {
  const parts = text.split(/(\[[^\]]*\])/g).filter((p) => p !== '');
  return (
    <span className="chat-snippet">
      {parts.map((p, i) => (p.startsWith('[') && p.endsWith(']') ? <mark key={i}>{p.slice(1, -1)}</mark> : <span key={i}>{p}</span>))}
    </span>
  );
}

function SearchResults({ q, sessions, onOpen }: { q: string; sessions: Session[]; onOpen: (id: string) => void }) {
  const search = useSessionSearch(q);
  if (search.isPending) return <Loading label="Searching…" />;
  if (search.error) return <ErrorNotice error={search.error} prefix="Couldn't search your chats." onRetry={() => void search.refetch()} />;
  if (search.data.length === 0) return <p className="muted">Nothing found for “{q.trim()}”.</p>;
  return (
    <ul className="chat-session-list" aria-label="Search results">
      {search.data.map((hit) => (
        <li key={hit.message_id} className="chat-session">
          <button type="button" className="chat-session-open" onClick={() => onOpen(hit.session_id)}>
            <strong>{chatTitle(sessions.find((s) => s.id === hit.session_id))}</strong>
            <Snippet text={hit.snippet} />
          </button>
        </li>
      ))}
    </ul>
  );
}

export function SessionList({
  openId,
  onOpen,
  onNew,
}: {
  openId: string | null;
  onOpen: (id: string) => void;
  onNew: () => void;
}) {
  const sessions = useSessions();
  const [q, setQ] = useState('');
  return (
    <aside className="chat-sessions" aria-label="Chats">
      <button type="button" className="btn btn-primary btn-wide" onClick={onNew}>
        New chat
      </button>
      <input type="search" className="chat-search" aria-label="Search chats" placeholder="Search chats" value={q} onChange={(e) => setQ(e.target.value)} />
      {q.trim() ? (
        <SearchResults q={q} sessions={sessions.data ?? []} onOpen={onOpen} />
      ) : sessions.isPending ? (
        <Loading label="Loading your chats…" />
      ) : sessions.error ? (
        <ErrorNotice error={sessions.error} prefix="Couldn't load your chats." onRetry={() => void sessions.refetch()} />
      ) : sessions.data.length === 0 ? (
        <p className="muted">No chats yet — say hello below.</p>
      ) : (
        <ul className="chat-session-list">
          {sessions.data.map((s) => (
            <SessionRow key={s.id} session={s} open={s.id === openId} onOpen={() => onOpen(s.id)} onDeleted={() => s.id === openId && onNew()} />
          ))}
        </ul>
      )}
    </aside>
  );
}
