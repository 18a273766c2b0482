// The chats, as the sidebar's second level under Chat: New chat, a search box (words found in any
// chat, with the matching words marked) and every chat grouped by Today, Yesterday and Earlier
// (last activity, in the person's time zone). In small windows it is a panel over the page.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Session } from '../../api';
import { useBootstrap } from '../../api/shared';
import { useSessionSearch, useSessions } from './queries';
import { ErrorNotice, Loading } from '../../components/Page';
import { groupChats, zoneFor } from './chatGroups';
import { openChat, setChatsPanel, useChatsPanel, useOpenChat } from './openChat';
import { chatTitle, SessionRow } from './SessionRow';
import './chat-list.css';

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
  if (search.data.length === 0) return <p className="muted chat-list-note">Nothing found for “{q.trim()}”.</p>;
  return (
    <ul className="chat-session-list" aria-label="Search results">
      {search.data.map((hit) => (
        <li key={hit.message_id} className="chat-session">
          <button type="button" className="chat-session-open chat-hit" onClick={() => onOpen(hit.session_id)}>
            <strong>{chatTitle(sessions.find((s) => s.id === hit.session_id))}</strong>
            <Snippet text={hit.snippet} />
          </button>
        </li>
      ))}
    </ul>
  );
}

/** "Now" for the groups, moved on every minute so a list left open past midnight regroups. */
function useNow(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function SessionList() {
  const sessions = useSessions();
  const bootstrap = useBootstrap();
  const { sessionId: openId } = useOpenChat();
  const [panel] = useChatsPanel();
  const [q, setQ] = useState('');
  const now = useNow();
  const zone = zoneFor(bootstrap.data?.assistant.timezone);
  const root = useRef<HTMLElement>(null);

  // Opened as a panel: focus goes into it, so the keyboard can use it at once.
  useEffect(() => {
    if (panel) root.current?.querySelector<HTMLElement>('.chat-new')?.focus();
  }, [panel]);

  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && panel) {
      setChatsPanel(false);
      document.querySelector<HTMLElement>('.chats-toggle')?.focus();
    }
  };

  const groups = sessions.data ? groupChats(sessions.data, now, zone) : [];
  return (
    <section className="chat-sessions" id="chat-list" aria-label="Chats" ref={root} onKeyDown={onKey}>
      <div className="chat-sessions-top">
        <button type="button" className="btn btn-primary btn-wide chat-new" onClick={() => openChat(null)}>
          <span aria-hidden="true">+</span> New chat
        </button>
        <input type="search" className="chat-search" aria-label="Search chats" placeholder="Search chats" value={q} onChange={(e) => setQ(e.target.value)} />
      </div>
      <div className="chat-sessions-scroll">
        {q.trim() ? (
          <SearchResults q={q} sessions={sessions.data ?? []} onOpen={(id) => openChat(id)} />
        ) : sessions.isPending ? (
          <Loading label="Loading your chats…" />
        ) : sessions.error ? (
          <ErrorNotice error={sessions.error} prefix="Couldn't load your chats." onRetry={() => void sessions.refetch()} />
        ) : sessions.data.length === 0 ? (
          <p className="muted chat-list-note">No chats yet — say hello below.</p>
        ) : (
          groups.map((g) => (
            <div key={g.label} className="chat-group" data-testid="chat-group">
              <h2 className="chat-group-label" id={`chat-group-${g.label}`}>
                {g.label}
              </h2>
              <ul className="chat-session-list" aria-labelledby={`chat-group-${g.label}`}>
                {g.sessions.map((s) => (
                  <SessionRow key={s.id} session={s} open={s.id === openId} onOpen={() => openChat(s.id)} onDeleted={() => s.id === openId && openChat(null)} />
                ))}
              </ul>
            </div>
          ))
        )}
      </div>
    </section>
  );
}
