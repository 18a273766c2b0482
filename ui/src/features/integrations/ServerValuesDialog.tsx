// A tool server's keys: the settings a program needs (env) or the headers a web address gets,
// each a password field. The missing ones are marked; a field left empty keeps what is saved.
import { useRef, useState, type FormEvent } from 'react';
import type { McpServerInfo } from '../../api/calls';
import { useSetMcpValues } from './queries';
import { ErrorNotice } from '../../components/Page';
import { KeyStoreChoice } from '../settings';
import { Dialog } from './Dialog';
import { valueKeys } from './words';

export function ServerValuesDialog({ server, onClose }: { server: McpServerInfo; onClose: () => void }) {
  const save = useSetMcpValues();
  const keys = valueKeys(server);
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(keys.map((k) => [k, ''])));
  const filled = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
  const kind = server.transport === 'http' ? 'headers' : 'settings';
  const form = useRef<HTMLFormElement>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (Object.keys(filled).length === 0) return;
    save.mutate({ name: server.name, values: filled }, { onSuccess: onClose });
  };

  return (
    <Dialog title={`Keys for ${server.name}`} onClose={onClose} testId="values-dialog">
      <form ref={form} className="int-form" onSubmit={submit} noValidate>
        <p className="int-dialog-body muted">
          The {kind} {server.name} gets when it starts. They're kept safe on this computer and never shown again; leave one
          empty to keep what's saved.
        </p>
        {keys.map((key) => {
          const id = `values-${server.name}-${key}`;
          const missing = server.missing_values.includes(key);
          return (
            <div className={missing ? 'field int-field-missing' : 'field'} key={key}>
              <label className="field-label" htmlFor={id}>
                <code>{key}</code>
                {missing ? <span className="int-needed"> Needed</span> : <span className="int-optional"> Saved</span>}
              </label>
              <input
                id={id}
                type="password"
                autoComplete="new-password"
                spellCheck={false}
                aria-invalid={missing || undefined}
                value={values[key] ?? ''}
                onChange={(e) => setValues((v) => ({ ...v, [key]: e.target.value }))}
              />
            </div>
          );
        })}
        <KeyStoreChoice error={save.error} onReady={() => form.current?.requestSubmit()}>
          <ErrorNotice error={save.error} />
        </KeyStoreChoice>
        <div className="int-dialog-actions">
          <button type="button" className="btn btn-quiet" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={save.isPending || Object.keys(filled).length === 0}>
            {save.isPending ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
