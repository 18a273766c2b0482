// One chat in the list: open it; on hover or keyboard focus, Rename and Delete (Delete asks once
// more before it deletes). Escape backs out of renaming or deleting.
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { Session } from '../../api';
import { useDeleteSession, useRenameSession } from './queries';

export function chatTitle(session: Pick<Session, 'title'> | undefined): string {
  return session?.title.trim() || 'New chat';
}

const PencilIcon = () => (
  <svg width="15" height="15" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
    <path d="M4 20h4L19 9l-4-4L4 16z" />
    <path d="M13.5 6.5l4 4" />
  </svg>
);

const TrashIcon = () => (
  <svg width="15" height="15" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
    <path d="M4 7h16M10 7V4h4v3M6 7l1 13h10l1-13" />
  </svg>
);

export function SessionRow({
  session,
  open,
  onOpen,
  onDeleted,
}: {
  session: Session;
  open: boolean;
  onOpen: () => void;
  onDeleted: () => void;
}) {
  const [mode, setMode] = useState<'idle' | 'rename' | 'delete'>('idle');
  const [title, setTitle] = useState(session.title);
  const rename = useRenameSession();
  const remove = useDeleteSession();
  const openButton = useRef<HTMLButtonElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const name = chatTitle(session);

  useEffect(() => {
    if (mode === 'delete') keep.current?.focus();
  }, [mode]);

  const back = () => {
    setMode('idle');
    rename.reset();
    remove.reset();
    // The row's own button takes the focus back once it is shown again.
    setTimeout(() => openButton.current?.focus(), 0);
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && mode !== 'idle') {
      e.stopPropagation();
      back();
    }
  };

  const saveTitle = (e: FormEvent) => {
    e.preventDefault();
    const next = title.trim();
    if (!next) return;
    rename.mutate({ id: session.id, title: next }, { onSuccess: back });
  };

  return (
    <li className={`chat-session${open ? ' open' : ''}${mode !== 'idle' ? ' busy' : ''}`} data-testid="session-row" onKeyDown={onKey}>
      {mode === 'rename' ? (
        <form className="chat-session-rename" onSubmit={saveTitle}>
          <input aria-label="Chat name" placeholder="Name this chat" value={title} onChange={(e) => setTitle(e.target.value)} autoFocus maxLength={200} />
          <div className="chat-session-confirm">
            <button type="submit" className="btn btn-primary chat-mini-btn" disabled={rename.isPending || title.trim() === ''}>
              Save
            </button>
            <button type="button" className="btn btn-quiet chat-mini-btn" onClick={back}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div className="chat-session-line">
          <button
            ref={openButton}
            type="button"
            className="chat-session-open"
            aria-current={open ? 'true' : undefined}
            onClick={onOpen}
            title={name}
          >
            <span className="chat-session-title">{name}</span>
          </button>
          {mode === 'idle' ? (
            <div className="chat-session-actions">
              <button
                type="button"
                className="chat-icon-btn"
                aria-label={`Rename ${name}`}
                title="Rename"
                onClick={() => {
                  setTitle(session.title);
                  setMode('rename');
                }}
              >
                <PencilIcon />
              </button>
              <button type="button" className="chat-icon-btn" aria-label={`Delete ${name}`} title="Delete" onClick={() => setMode('delete')}>
                <TrashIcon />
              </button>
            </div>
          ) : null}
        </div>
      )}
      {mode === 'delete' ? (
        <div className="chat-session-confirm" role="group" aria-label="Delete this chat?">
          <span>Delete this chat?</span>
          <button
            type="button"
            className="btn btn-stop chat-mini-btn"
            disabled={remove.isPending}
            onClick={() => remove.mutate(session.id, { onSuccess: onDeleted })}
          >
            {remove.isPending ? 'Deleting…' : 'Delete'}
          </button>
          <button ref={keep} type="button" className="btn btn-quiet chat-mini-btn" onClick={back}>
            Keep it
          </button>
        </div>
      ) : null}
      {rename.error || remove.error ? (
        <p className="chat-error" role="alert">
          {(rename.error ?? remove.error)?.detail}
        </p>
      ) : null}
    </li>
  );
}
