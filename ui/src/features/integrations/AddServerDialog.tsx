// Adding a tool server: a name, then either a program on this computer (its command, arguments
// and optional settings) or a web address (with optional headers), and Read only. The engine
// waits up to 15 s for it to connect, so the dialog says it is connecting; its sentence shows
// under the form when it refuses.
import { useRef, useState, type FormEvent } from 'react';
import type { NewMcpServer } from '../../api/calls';
import { useAddMcpServer } from './queries';
import { ErrorNotice } from '../../components/Page';
import { KeyStoreChoice } from '../settings';
import { Dialog } from './Dialog';
import { Switch } from './Switch';
import { READ_ONLY_HELP, splitArgs } from './words';

type Row = { id: number; key: string; value: string };
type Transport = 'stdio' | 'http';

export function AddServerDialog({ onClose }: { onClose: () => void }) {
  const add = useAddMcpServer();
  const [name, setName] = useState('');
  const [transport, setTransport] = useState<Transport>('stdio');
  const [command, setCommand] = useState('');
  const [args, setArgs] = useState('');
  const [url, setUrl] = useState('');
  const [rows, setRows] = useState<Row[]>([]);
  const [nextRow, setNextRow] = useState(1);
  const [readOnly, setReadOnly] = useState(false);
  const what = transport === 'stdio' ? 'setting' : 'header';
  const form = useRef<HTMLFormElement>(null);

  const values = (): Record<string, string> | undefined => {
    const filled = rows.filter((r) => r.key.trim() !== '');
    return filled.length ? Object.fromEntries(filled.map((r) => [r.key.trim(), r.value])) : undefined;
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const base = { name: name.trim(), access: readOnly ? 'read' : 'read_write' };
    const server: NewMcpServer =
      transport === 'stdio'
        ? { ...base, transport, command: command.trim(), args: splitArgs(args), env: values() }
        : { ...base, transport, url: url.trim(), headers: values() };
    add.mutate(server, { onSuccess: onClose });
  };

  const setRow = (id: number, change: Partial<Row>) => setRows((rs) => rs.map((r) => (r.id === id ? { ...r, ...change } : r)));

  return (
    <Dialog title="Add a tool server" onClose={() => !add.isPending && onClose()} testId="add-server">
      <form ref={form} className="int-form" onSubmit={submit} noValidate aria-label="Add a tool server">
        <p className="int-dialog-body muted">
          A tool server gives Sentient more tools, using the Model Context Protocol (MCP). Its guide says what to enter.
        </p>
        <div className="field">
          <label className="field-label" htmlFor="server-name">
            Name
          </label>
          <input
            id="server-name"
            value={name}
            autoComplete="off"
            spellCheck={false}
            aria-describedby="server-name-help"
            onChange={(e) => setName(e.target.value)}
          />
          <span className="field-help" id="server-name-help">
            A short name made of letters, digits, - or _. Its tools are named after it.
          </span>
        </div>

        <fieldset className="choice">
          <legend>Where it runs</legend>
          <div className="segmented">
            {(
              [
                ['stdio', 'A program on this computer'],
                ['http', 'A web address'],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className={transport === value ? 'segment selected' : 'segment'}>
                <input
                  type="radio"
                  name="server-transport"
                  value={value}
                  checked={transport === value}
                  onChange={() => {
                    setTransport(value);
                    setRows([]);
                  }}
                />
                {label}
              </label>
            ))}
          </div>
        </fieldset>

        {transport === 'stdio' ? (
          <>
            <div className="field">
              <label className="field-label" htmlFor="server-command">
                Command
              </label>
              <input
                id="server-command"
                value={command}
                autoComplete="off"
                spellCheck={false}
                placeholder="npx"
                aria-describedby="server-command-help"
                onChange={(e) => setCommand(e.target.value)}
              />
              <span className="field-help" id="server-command-help">
                The program that starts the server, for example npx, uvx or node.
              </span>
            </div>
            <div className="field">
              <label className="field-label" htmlFor="server-args">
                Arguments <span className="int-optional">(optional)</span>
              </label>
              <input
                id="server-args"
                value={args}
                autoComplete="off"
                spellCheck={false}
                placeholder="-y @modelcontextprotocol/server-everything"
                aria-describedby="server-args-help"
                onChange={(e) => setArgs(e.target.value)}
              />
              <span className="field-help" id="server-args-help">
                Separated by spaces; put quotes around one that has spaces in it.
              </span>
            </div>
          </>
        ) : (
          <div className="field">
            <label className="field-label" htmlFor="server-url">
              Web address
            </label>
            <input
              id="server-url"
              type="url"
              value={url}
              autoComplete="off"
              spellCheck={false}
              placeholder="https://example.com/mcp"
              aria-describedby="server-url-help"
              onChange={(e) => setUrl(e.target.value)}
            />
            <span className="field-help" id="server-url-help">
              The server's address, starting with https://.
            </span>
          </div>
        )}

        <fieldset className="choice int-rows">
          <legend>
            {transport === 'stdio' ? 'Settings it needs' : 'Headers it needs'} <span className="int-optional">(optional)</span>
          </legend>
          <p className="field-help">
            {transport === 'stdio'
              ? "Such as an API key the program reads from its environment. Kept in this computer's keychain."
              : "Such as an access key sent with every request. Kept in this computer's keychain."}
          </p>
          {rows.map((r, i) => (
            <div className="int-row" key={r.id}>
              <input
                aria-label={`Name of ${what} ${i + 1}`}
                placeholder={transport === 'stdio' ? 'API_KEY' : 'Authorization'}
                value={r.key}
                autoComplete="off"
                spellCheck={false}
                onChange={(e) => setRow(r.id, { key: e.target.value })}
              />
              <input
                aria-label={`Value of ${what} ${i + 1}`}
                type="password"
                autoComplete="new-password"
                value={r.value}
                onChange={(e) => setRow(r.id, { value: e.target.value })}
              />
              <button
                type="button"
                className="btn btn-quiet"
                aria-label={`Remove ${what} ${i + 1}`}
                onClick={() => setRows((rs) => rs.filter((x) => x.id !== r.id))}
              >
                ×
              </button>
            </div>
          ))}
          <button
            type="button"
            className="btn btn-quiet int-add-row"
            onClick={() => {
              setRows((rs) => [...rs, { id: nextRow, key: '', value: '' }]);
              setNextRow((n) => n + 1);
            }}
          >
            Add a {what}
          </button>
        </fieldset>

        <Switch id="server-read-only" label="Read only" help={READ_ONLY_HELP} checked={readOnly} onChange={setReadOnly} />

        {add.isPending ? (
          <p className="int-waiting muted" role="status">
            <span className="spinner" aria-hidden="true" /> Connecting… Sentient starts it and asks for its tools, which can take
            up to 15 seconds.
          </p>
        ) : null}
        <KeyStoreChoice error={add.error} onReady={() => form.current?.requestSubmit()}>
          <ErrorNotice error={add.error} />
        </KeyStoreChoice>
        <div className="int-dialog-actions">
          <button type="button" className="btn btn-quiet" onClick={onClose} disabled={add.isPending}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={add.isPending}>
            {add.isPending ? 'Connecting…' : 'Add server'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
