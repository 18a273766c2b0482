// Import: a PDF, Word (.docx), text or Markdown file, picked or dropped. The model reads it and
// suggests facts; each waits in Review until you approve it. The call is one request, so the
// busy state is an indeterminate bar; a file the engine would refuse (another type, over 20 MB)
// is refused here first, with the same kind of sentence.
import { useRef, useState, type DragEvent } from 'react';
import type { ImportResult } from '../../api';
import { ErrorNotice } from '../../components/Page';
import { asError, useImportMemories } from './queries';

export const IMPORT_INTRO =
  'Sentient reads the file with your model and suggests facts; each waits in Review until you approve it.';
/** What the picker offers (the engine also takes `.markdown`). */
export const IMPORT_ACCEPT = '.pdf,.docx,.txt,.md';
const IMPORT_EXTENSIONS = ['pdf', 'docx', 'txt', 'md', 'markdown'];
/** The engine's limit (`MAX_IMPORT_BYTES`). */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;

/** The last part of a path (some browsers and drops hand one over). */
function baseName(name: string): string {
  return (name.split(/[/\\]/).pop() ?? name).trim();
}

/** Why a file can't be imported, in the engine's words, before it is sent; null when it can. */
export function refusal(file: { name: string; size: number }): string | null {
  const name = baseName(file.name);
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  if (!IMPORT_EXTENSIONS.includes(extension))
    return `Sentient can import PDF, Word (.docx), text and Markdown files; ${name || 'this file'} is none of these.`;
  if (file.size > MAX_IMPORT_BYTES)
    return `${name} is larger than 20 MB. Split it into smaller files and import them one by one.`;
  return null;
}

/** What an import found, in plain words. */
export function importWords(result: ImportResult, name: string): string {
  const { added, updated, skipped, pending } = result;
  const found = added + updated + skipped;
  if (found === 0) return `Found no facts in ${name}.`;
  const parts: string[] = [];
  if (pending > 0) parts.push(`${pending} ${pending === 1 ? 'waits' : 'wait'} for your review`);
  if (added > pending) parts.push(`${added - pending} remembered`);
  if (updated > 0) parts.push(`${updated} updated what Sentient knew`);
  if (skipped > 0) parts.push(`${skipped} you already had`);
  return `Found ${found} ${found === 1 ? 'fact' : 'facts'} in ${name}: ${parts.join(', ')}.`;
}

export function ImportTab({ onOpenReview }: { onOpenReview: () => void }) {
  const run = useImportMemories();
  const picker = useRef<HTMLInputElement>(null);
  const [name, setName] = useState<string | null>(null);
  const [refused, setRefused] = useState<string | null>(null);
  const [over, setOver] = useState(false);
  const busy = run.isPending;

  const start = (file: File | undefined) => {
    if (picker.current) picker.current.value = '';
    if (!file || busy) return;
    const shown = baseName(file.name);
    setName(shown);
    run.reset();
    const why = refusal(file);
    setRefused(why);
    if (why) return;
    run.mutate({ file, name: shown });
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    start(e.dataTransfer.files[0]);
  };

  const result = run.data;
  const resultName = result?.source.startsWith('file:') ? result.source.slice(5) : name;
  const error = asError(run.error);

  return (
    <div className="memory-import">
      <p className="muted">{IMPORT_INTRO}</p>
      <div
        className={over ? 'card memory-drop memory-drop-over' : 'card memory-drop'}
        data-testid="import-drop"
        aria-busy={busy}
        onDragEnter={(e) => {
          e.preventDefault();
          if (!busy) setOver(true);
        }}
        onDragOver={(e) => {
          e.preventDefault();
          e.dataTransfer.dropEffect = busy ? 'none' : 'copy';
        }}
        onDragLeave={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
        }}
        onDrop={onDrop}
      >
        <p className="memory-drop-title">Drop a file here, or choose one</p>
        <p className="muted">PDF, Word (.docx), text (.txt) or Markdown (.md), up to 20 MB.</p>
        <input
          ref={picker}
          type="file"
          hidden
          accept={IMPORT_ACCEPT}
          aria-label="File to import"
          onChange={(e) => start(e.target.files?.[0])}
        />
        <button type="button" className="btn btn-primary" disabled={busy} onClick={() => picker.current?.click()}>
          Choose a file
        </button>
      </div>

      {busy ? (
        <div className="memory-import-busy" role="status" aria-live="polite" data-testid="import-busy">
          <p>
            Reading <strong>{name}</strong>… A long file can take a few minutes.
          </p>
          <progress aria-label={`Importing ${name}`} />
        </div>
      ) : null}

      {refused ? (
        <div className="notice notice-error" role="alert" data-testid="import-refused">
          <p>{refused}</p>
        </div>
      ) : null}

      {error ? (
        <ErrorNotice
          error={error}
          // The engine's 400 and 413 sentences name the file; a 503 (the search extension, the model) doesn't.
          prefix={error.status >= 500 || error.unreachable ? `Couldn't import ${name}.` : undefined}
          onRetry={(error.status >= 500 || error.unreachable) && run.variables ? () => run.variables && run.mutate(run.variables) : undefined}
        />
      ) : null}

      {result && !busy ? (
        <div className="card memory-import-result" role="status" data-testid="import-result">
          <p>{importWords(result, resultName ?? 'the file')}</p>
          {result.pending > 0 ? (
            <span className="task-actions">
              <button type="button" className="btn btn-primary" onClick={onOpenReview}>
                Open Review
              </button>
            </span>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
