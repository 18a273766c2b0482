// Notes: the files Sentient reads before every reply. SOUL.md (who it is, with persona
// presets), USER.md (who you are) and MEMORY.md (what it keeps in mind) can be edited; today's
// and yesterday's daily notes are shown as they are.
import { useEffect, useState } from 'react';
import type { MemoryWorkspace, NotesFileName } from '../../api';
import { ErrorNotice, Loading } from '../../components/Page';
import { asError, useMemoryPersonas, useMemoryWorkspace, useSaveNotes } from './queries';

const FILES: Array<{ name: NotesFileName; title: string; hint: string }> = [
  { name: 'soul', title: 'SOUL.md', hint: 'Who Sentient is and how it talks.' },
  { name: 'user', title: 'USER.md', hint: 'Who you are, in your words.' },
  { name: 'memory', title: 'MEMORY.md', hint: 'What Sentient keeps in mind between chats.' },
];

export function NotesTab() {
  const workspace = useMemoryWorkspace(true);
  if (workspace.isPending) return <Loading label="Loading notes…" />;
  if (workspace.error)
    return <ErrorNotice error={asError(workspace.error)} prefix="Couldn't load the notes." onRetry={() => void workspace.refetch()} />;
  return (
    <div className="memory-notes">
      {FILES.map((f) => (
        <NotesEditor key={f.name} file={f} saved={workspace.data[f.name]} />
      ))}
      <DailyNote title="Today" text={workspace.data.today} />
      <DailyNote title="Yesterday" text={workspace.data.yesterday} />
    </div>
  );
}

function NotesEditor({ file, saved }: { file: (typeof FILES)[number]; saved: MemoryWorkspace[NotesFileName] }) {
  const [text, setText] = useState(saved);
  const save = useSaveNotes();
  const personas = useMemoryPersonas(file.name === 'soul');
  // A save from elsewhere (another window) shows here unless this editor has unsaved changes.
  const [base, setBase] = useState(saved);
  useEffect(() => {
    if (saved !== base) {
      if (text === base) setText(saved);
      setBase(saved);
    }
  }, [saved, base, text]);
  const changed = text !== saved;
  return (
    <section className="card memory-notes-file" aria-labelledby={`notes-${file.name}`}>
      <h2 id={`notes-${file.name}`}>{file.title}</h2>
      <p className="muted">{file.hint}</p>
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
        value={text}
        rows={8}
        onChange={(e) => setText(e.target.value)}
      />
      <span className="task-actions">
        <button
          type="button"
          className="btn btn-primary"
          disabled={!changed || save.isPending}
          onClick={() => save.mutate({ name: file.name, content: text })}
        >
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        {save.isSuccess && !changed ? (
          <span className="muted" role="status">
            Saved.
          </span>
        ) : null}
      </span>
      <ErrorNotice error={asError(save.error)} prefix={`Couldn't save ${file.title}.`} />
    </section>
  );
}

function DailyNote({ title, text }: { title: string; text: string }) {
  return (
    <section className="card memory-notes-file" aria-label={`${title}'s note`}>
      <h2>{title}</h2>
      {text.trim() ? <pre className="memory-daily">{text}</pre> : <p className="muted">Nothing noted.</p>}
    </section>
  );
}
