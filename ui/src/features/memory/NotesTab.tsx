// Notes: what Sentient reads before every reply, in plain words. "How Sentient talks" (SOUL.md,
// with persona presets), "About you" (USER.md) and "Things to remember" (MEMORY.md) show as
// formatted text with an Edit button; editing shows the markdown and Save. Today's and
// yesterday's daily notes are shown as they are. File names show only while editing.
import { useEffect, useState } from 'react';
import type { MemoryWorkspace, NotesFileName } from '../../api';
import { ErrorNotice, Loading } from '../../components/Page';
import { Markdown } from '../chat';
import { asError, useMemoryPersonas, useMemoryWorkspace, useSaveNotes } from './queries';

export const NOTES_FILES: Array<{ name: NotesFileName; title: string; hint: string; file: string; empty: string }> = [
  {
    name: 'soul',
    title: 'How Sentient talks',
    hint: 'Who Sentient is and how it answers you.',
    file: 'SOUL.md',
    empty: 'Nothing written yet: Sentient talks in its usual way.',
  },
  { name: 'user', title: 'About you', hint: 'Who you are, in your words.', file: 'USER.md', empty: 'Nothing written about you yet.' },
  {
    name: 'memory',
    title: 'Things to remember',
    hint: 'What Sentient keeps in mind between chats.',
    file: 'MEMORY.md',
    empty: 'Nothing to remember yet.',
  },
];

export function NotesTab() {
  const workspace = useMemoryWorkspace(true);
  if (workspace.isPending) return <Loading label="Loading notes…" />;
  if (workspace.error)
    return <ErrorNotice error={asError(workspace.error)} prefix="Couldn't load the notes." onRetry={() => void workspace.refetch()} />;
  return (
    <div className="memory-notes">
      {NOTES_FILES.map((f) => (
        <NotesEditor key={f.name} file={f} saved={workspace.data[f.name]} />
      ))}
      <DailyNote title="Today" text={workspace.data.today} />
      <DailyNote title="Yesterday" text={workspace.data.yesterday} />
    </div>
  );
}

function NotesEditor({ file, saved }: { file: (typeof NOTES_FILES)[number]; saved: MemoryWorkspace[NotesFileName] }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(saved);
  const save = useSaveNotes();
  const personas = useMemoryPersonas(file.name === 'soul' && editing);
  // A save from elsewhere (another window) shows here unless this editor has unsaved changes.
  const [base, setBase] = useState(saved);
  useEffect(() => {
    if (saved !== base) {
      if (text === base) setText(saved);
      setBase(saved);
    }
  }, [saved, base, text]);
  const changed = text !== saved;
  const headingId = `notes-${file.name}`;
  return (
    <section className="card memory-notes-file" aria-labelledby={headingId} data-testid={`notes-${file.name}`}>
      <div className="memory-notes-head">
        <h2 id={headingId}>{file.title}</h2>
        {editing ? null : (
          <button type="button" className="btn btn-quiet" aria-label={`Edit ${file.title}`} onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
      </div>
      <p className="muted">{file.hint}</p>
      {!editing ? (
        <>
          {saved.trim() ? <Markdown text={saved} /> : <p className="muted">{file.empty}</p>}
          {save.isSuccess ? (
            <p className="muted" role="status">
              Saved.
            </p>
          ) : null}
        </>
      ) : (
        <>
          {file.name === 'soul' && personas.data ? (
            <div className="task-actions" role="group" aria-label="Personas">
              {personas.data.map((p) => (
                <button key={p.id} type="button" className="btn btn-quiet" title={p.description} onClick={() => setText(p.soul_md)}>
                  Use {p.name}
                </button>
              ))}
            </div>
          ) : null}
          <textarea
            className="input memory-notes-text"
            aria-label={file.title}
            aria-describedby={`${headingId}-file`}
            value={text}
            rows={8}
            onChange={(e) => setText(e.target.value)}
          />
          <p className="muted" id={`${headingId}-file`}>
            Formatted with Markdown; kept in {file.file} in Sentient's folder.
          </p>
          <span className="task-actions">
            <button
              type="button"
              className="btn btn-primary"
              disabled={!changed || save.isPending}
              onClick={() => save.mutate({ name: file.name, content: text }, { onSuccess: () => setEditing(false) })}
            >
              {save.isPending ? 'Saving…' : 'Save'}
            </button>
            <button
              type="button"
              className="btn btn-quiet"
              disabled={save.isPending}
              onClick={() => {
                setText(saved);
                save.reset();
                setEditing(false);
              }}
            >
              Cancel
            </button>
          </span>
        </>
      )}
      <ErrorNotice error={asError(save.error)} prefix={`Couldn't save "${file.title}".`} />
    </section>
  );
}

function DailyNote({ title, text }: { title: string; text: string }) {
  return (
    <section className="card memory-notes-file" aria-label={`${title}'s note`}>
      <h2>{title}</h2>
      {text.trim() ? <Markdown text={text} /> : <p className="muted">Nothing noted.</p>}
    </section>
  );
}
