// The message box: text, attached files (uploaded first, then sent by name), Send, and Stop
// while a reply runs. Sending during a reply adds the words to it (steering). Enter sends,
// Shift+Enter breaks the line, Up in an empty box brings back the last message to edit; the box
// is focused when the chat opens and again after each send.
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useUploadFile } from './queries';

export function Composer({
  running,
  disabled,
  onSend,
  onStop,
  lastMessage = null,
}: {
  running: boolean;
  disabled?: boolean;
  onSend: (text: string, attachments: string[]) => void;
  onStop: () => void;
  lastMessage?: string | null;
}) {
  const [text, setText] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => box.current?.focus(), []);
  const [files, setFiles] = useState<string[]>([]);
  const upload = useUploadFile();
  const picker = useRef<HTMLInputElement>(null);

  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    const words = text.trim();
    if (!words || disabled) return;
    // Files go with a new message; words added to a running reply are text only.
    onSend(words, running ? [] : files);
    setText('');
    if (!running) setFiles([]);
    box.current?.focus();
  };

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) submit(e);
    if (e.key === 'ArrowUp' && text === '' && lastMessage) {
      e.preventDefault();
      setText(lastMessage);
    }
  };

  const pick = async (list: FileList | null) => {
    for (const file of Array.from(list ?? [])) {
      try {
        const saved = await upload.mutateAsync(file);
        setFiles((prev) => [...prev, saved.name]);
      } catch {
        // The mutation keeps the error; it is shown below.
      }
    }
    if (picker.current) picker.current.value = '';
  };

  return (
    <form className="chat-composer" onSubmit={submit} aria-label="Write a message">
      {files.length > 0 ? (
        <ul className="chips" aria-label="Files to send">
          {files.map((name) => (
            <li key={name} className="chip" data-testid="attachment-chip">
              {name}
              <button type="button" className="chip-remove" aria-label={`Remove ${name}`} onClick={() => setFiles(files.filter((f) => f !== name))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {upload.error ? (
        <p className="chat-error" role="alert">
          {upload.error.detail}
        </p>
      ) : null}
      <textarea
        ref={box}
        aria-label="Message"
        placeholder={running ? 'Add something to the reply…' : 'Write a message…'}
        value={text}
        rows={3}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKey}
      />
      <div className="chat-composer-actions">
        <input ref={picker} type="file" multiple hidden aria-label="Choose files" onChange={(e) => void pick(e.target.files)} />
        <button type="button" className="btn btn-quiet" disabled={running || upload.isPending} onClick={() => picker.current?.click()}>
          {upload.isPending ? 'Uploading…' : 'Attach a file'}
        </button>
        <span className="spacer" />
        {running ? (
          <button type="button" className="btn btn-stop" onClick={onStop}>
            Stop
          </button>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={disabled || text.trim() === ''}>
          {running ? 'Add to reply' : 'Send'}
        </button>
      </div>
    </form>
  );
}
