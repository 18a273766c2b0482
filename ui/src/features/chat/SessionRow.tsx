// One chat in the list: open it, rename it, or delete it (after a second click to confirm).
import { useState, type FormEvent } from 'react';
import type { Session } from '../../api';
import { useDeleteSession, useRenameSession } from '../../api/queries';

export function chatTitle(session: Pick<Session, 'title'> | undefined): string {
  return session?.title.trim() || 'New chat';
}

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

  const saveTitle = (e: FormEvent) => {
    e.preventDefault();
    const next = title.trim();
    if (!next) return;
    rename.mutate({ id: session.id, title: next }, { onSuccess: () => setMode('idle') });
  };

  return (
    <li className={open ? 'chat-session open' : 'chat-session'} data-testid="session-row">
      {mode === 'rename' ? (
        <form className="chat-session-rename" onSubmit={saveTitle}>
          <input aria-label="Chat name" value={title} onChange={(e) => setTitle(e.target.value)} autoFocus />
          <button type="submit" className="btn btn-primary" disabled={rename.isPending}>
            Save
          </button>
          <button type="button" className="btn btn-quiet" onClick={() => setMode('idle')}>
            Cancel
          </button>
        </form>
      ) : (
        <button type="button" className="chat-session-open" aria-current={open ? 'true' : undefined} onClick={onOpen}>
          {chatTitle(session)}
        </button>
      )}
      {mode === 'idle' ? (
        <div className="chat-session-actions">
          <button
            type="button"
            className="btn btn-quiet"
            aria-label={`Rename ${chatTitle(session)}`}
            onClick={() => {
              setTitle(session.title);
              setMode('rename');
            }}
          >
            Rename
          </button>
          <button type="button" className="btn btn-quiet" aria-label={`Delete ${chatTitle(session)}`} onClick={() => setMode('delete')}>
            Delete
          </button>
        </div>
      ) : null}
      {mode === 'delete' ? (
        <div className="chat-session-actions" role="group" aria-label="Delete this chat?">
          <span>Delete this chat?</span>
          <button
            type="button"
            className="btn btn-stop"
            disabled={remove.isPending}
            onClick={() => remove.mutate(session.id, { onSuccess: onDeleted })}
          >
            Delete
          </button>
          <button type="button" className="btn btn-quiet" onClick={() => setMode('idle')}>
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
