// Connecting an app: a form made from its setup fields (secrets masked, required ones marked, the
// help under each, the setup steps and a link to the provider's guide), with Read only. The engine
// answers the app (done), a page to sign in on (opened in the browser while the dialog waits), or
// GitHub's device code to type there (with Copy). The engine's sentence shows under the form.
// Email (IMAP) starts with two fields (MailFields), the full form one click away. Giving up on a
// connect (Cancel, Escape, the close button) puts the app back as it was, never to Error.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { ConnectAnswer, Integration } from '../../api/calls';
import { isSignIn, useCancelConnect, useConnectIntegration } from './queries';
import { filledFrom, MailFields } from './MailFields';
import { ErrorNotice } from '../../components/Page';
import { KeyStoreChoice } from '../settings';
import { CopyButton } from '../../components/CopyButton';
import { Dialog } from './Dialog';
import { openExternal } from '../../components/openExternal';
import { SimpleMarkdown } from './SimpleMarkdown';
import { Switch } from './Switch';
import { READ_ONLY_HELP } from './words';

type SignIn = Extract<ConnectAnswer, { auth_url: string }>;

export function ConnectDialog({ app, onClose }: { app: Integration; onClose: () => void }) {
  const connect = useConnectIntegration();
  const cancelConnect = useCancelConnect();
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(app.setup.fields.map((f) => [f.key, ''])),
  );
  const [readOnly, setReadOnly] = useState(app.access === 'read');
  const [signIn, setSignIn] = useState<SignIn | null>(null);
  const [done, setDone] = useState(false);
  // A connect was sent from this dialog, so leaving it without finishing is a cancel.
  const [attempted, setAttempted] = useState(false);
  // Email (IMAP) shows the address and app password only, until "More settings".
  const [full, setFull] = useState(app.id !== 'email_imap');
  const form = useRef<HTMLFormElement>(null);
  // "More settings" goes away as it is pressed: focus moves to the full form's first field.
  const [opened, setOpened] = useState(false);
  useEffect(() => {
    if (opened) form.current?.querySelector<HTMLElement>('input')?.focus();
  }, [opened]);
  // The app as it was when the sign-in began: only a newer copy can say how it ended.
  const before = useRef<Integration | null>(null);
  const name = app.display_name;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAttempted(true);
    // The two-field form sends two fields: the engine finds the servers itself.
    const fields = full ? values : { username: values.username ?? '', password: values.password ?? '' };
    connect.mutate(
      { id: app.id, fields, access: readOnly ? 'read' : 'read_write' },
      {
        onSuccess: (answer) => {
          if (isSignIn(answer)) {
            before.current = app;
            setSignIn(answer);
            // The device flow shows its code first; a browser sign-in opens at once.
            if (!answer.user_code) openExternal(answer.auth_url);
          } else {
            setDone(true);
          }
        },
      },
    );
  };

  const cancel = () => {
    if (attempted && !done && app.status !== 'connected') cancelConnect.mutate(app.id);
    onClose();
  };

  // The sign-in finishes in the background; the app arrives as `integration.updated`.
  const changed = signIn !== null && app !== before.current;
  const signedIn = changed && app.status === 'connected';
  const signInFailed = changed && app.status === 'error';

  if (done || signedIn) {
    return (
      <Dialog key="done" title={`${name} is connected`} onClose={onClose} testId="connect-dialog">
        <p className="int-dialog-body" role="status">
          {app.account_label ? `Sentient is signed in as ${app.account_label}.` : `Sentient can now use ${name}.`}
        </p>
        <div className="int-dialog-actions">
          <button type="button" className="btn btn-primary" onClick={onClose} data-autofocus>
            Done
          </button>
        </div>
      </Dialog>
    );
  }

  if (signIn) {
    return (
      <Dialog key="sign-in" title={`Sign in to ${name}`} onClose={cancel} testId="connect-dialog">
        {signIn.user_code ? (
          <div className="int-dialog-body int-device" data-testid="device-code">
            <p>Enter this code on the {name} page to let Sentient in:</p>
            <div className="int-device-code-row">
              <code className="int-device-code" data-testid="user-code">
                {signIn.user_code}
              </code>
              <CopyButton value={signIn.user_code} label="Copy the code" />
            </div>
            <p>
              <a href={signIn.auth_url} target="_blank" rel="noreferrer noopener" data-autofocus>
                Open {hostOf(signIn.auth_url)}
              </a>
            </p>
          </div>
        ) : (
          <div className="int-dialog-body">
            <p>Finish signing in in your browser.</p>
            <p className="muted">
              If no page opened,{' '}
              <a href={signIn.auth_url} target="_blank" rel="noreferrer noopener" data-autofocus>
                open the sign-in page
              </a>
              .
            </p>
          </div>
        )}
        {signInFailed ? (
          <div className="notice notice-error" role="alert">
            <p>{app.error ?? `Signing in to ${name} didn't work.`}</p>
            <button type="button" className="btn btn-quiet" onClick={() => { connect.reset(); setSignIn(null); }}>
              Try again
            </button>
          </div>
        ) : (
          <p className="int-waiting muted" role="status">
            <span className="spinner" aria-hidden="true" /> Waiting for {name}…
          </p>
        )}
        <div className="int-dialog-actions">
          <button type="button" className="btn btn-quiet" onClick={cancel}>
            Cancel
          </button>
        </div>
      </Dialog>
    );
  }

  const fields = app.setup.fields;
  const setValue = (key: string, value: string) => setValues((v) => ({ ...v, [key]: value }));
  // A sign-in app with its client already there (saved, or built into this copy): the client's
  // fields stay out of the way.
  const signInOnly = app.auth_type === 'oauth' && fields.length > 0 && fields.every((f) => !f.required);
  const fieldRows = fields.map((f) => {
    const id = `connect-${app.id}-${f.key}`;
    return (
      <div className="field" key={f.key}>
        <label className="field-label" htmlFor={id}>
          {f.label}
          {f.required ? (
            <span className="int-required" aria-hidden="true">
              {' '}
              *
            </span>
          ) : (
            <span className="int-optional"> (optional)</span>
          )}
        </label>
        <input
          id={id}
          type={f.secret ? 'password' : 'text'}
          autoComplete={f.secret ? 'new-password' : 'off'}
          spellCheck={false}
          aria-required={f.required || undefined}
          aria-describedby={f.help ? `${id}-help` : undefined}
          value={values[f.key] ?? ''}
          onChange={(e) => setValue(f.key, e.target.value)}
        />
        {f.help ? (
          <span className="field-help" id={`${id}-help`}>
            {f.help}
          </span>
        ) : null}
      </div>
    );
  });
  return (
    <Dialog key="form" title={`Connect ${name}`} onClose={cancel} testId="connect-dialog">
      <form ref={form} className="int-form" onSubmit={submit} noValidate aria-label={`Connect ${name}`}>
        {!full ? (
          <MailFields
            appId={app.id}
            values={values}
            onChange={setValue}
            onMore={(found) => {
              setValues((v) => filledFrom(v, found));
              setFull(true);
              setOpened(true);
            }}
          />
        ) : null}
        {full && app.setup.instructions_md.trim() ? (
          <div className="int-steps">
            <SimpleMarkdown text={app.setup.instructions_md} className="int-markdown" />
            {app.setup.docs_url ? (
              <a href={app.setup.docs_url} target="_blank" rel="noreferrer noopener" className="int-docs">
                Open {name}'s setup guide
              </a>
            ) : null}
          </div>
        ) : null}
        {full && signInOnly ? (
          <details className="int-own-client">
            <summary>Use your own OAuth client</summary>
            {fieldRows}
          </details>
        ) : null}
        {full && !signInOnly ? fieldRows : null}
        {full && fields.some((f) => f.required) ? (
          <p className="field-help">
            <span className="int-required" aria-hidden="true">
              *
            </span>{' '}
            Needed to connect.
          </p>
        ) : null}
        {/* A keyed alternative has no tools of its own, so nothing for Read only to hold back. */}
        {app.alternative_for ? null : (
          <Switch
            id={`connect-${app.id}-read-only`}
            label="Read only"
            help={READ_ONLY_HELP}
            checked={readOnly}
            onChange={setReadOnly}
          />
        )}
        {/* No keychain: the way forward instead of a dead end; once chosen, Connect again. */}
        <KeyStoreChoice error={connect.error} onReady={() => form.current?.requestSubmit()}>
          <ErrorNotice error={connect.error} />
        </KeyStoreChoice>
        <div className="int-dialog-actions">
          <button type="button" className="btn btn-quiet" onClick={cancel}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={connect.isPending} data-autofocus={signInOnly || undefined}>
            {connect.isPending ? 'Connecting…' : 'Connect'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'the sign-in page';
  }
}
