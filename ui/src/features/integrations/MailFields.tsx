// Email (IMAP) in two fields: the address and an app password. Once the address is typed the
// engine looks up its servers (known providers, the domain's autoconfig, SRV and MX records) and
// the dialog says what it found, with the provider's app-password page; "More settings" opens the
// full form filled with them. Connect sends the two fields only: the engine finds the servers again.
import type { MailServers } from '../../api/calls';
import { useDiscoverEmail } from './queries';

/** The full form's fields filled with what was found, where the person left them empty. */
export function filledFrom(values: Record<string, string>, found: MailServers | null | undefined): Record<string, string> {
  if (!found) return values;
  const wanted: Record<string, string> = {
    host: found.host,
    port: String(found.port),
    security: found.security,
    username: found.username,
    smtp_host: found.smtp_host ?? '',
    smtp_port: found.smtp_port == null ? '' : String(found.smtp_port),
  };
  const next = { ...values };
  for (const [key, value] of Object.entries(wanted)) {
    // Only the fields the form has; a value typed there stays (the username follows the document).
    if (key in next && (!next[key]?.trim() || key === 'username')) next[key] = value;
  }
  return next;
}

export function MailFields({
  appId,
  values,
  onChange,
  onMore,
}: {
  appId: string;
  values: Record<string, string>;
  onChange: (key: string, value: string) => void;
  /** Opens the full form, with what was found (if anything). */
  onMore: (found: MailServers | null) => void;
}) {
  const discover = useDiscoverEmail();
  const address = (values.username ?? '').trim();
  // Only an answer about the address in the field counts (it may have changed since).
  const asked = discover.variables;
  const found = discover.data && asked === address ? discover.data : null;
  const notFound = discover.error && asked === address ? discover.error : null;
  const lookUp = () => {
    if (address.includes('@') && asked !== address) discover.mutate(address);
  };
  const id = (key: string) => `connect-${appId}-${key}`;
  const where = found ? (found.provider ?? found.host) : null;

  return (
    <>
      <div className="field">
        <label className="field-label" htmlFor={id('username')}>
          Email address
        </label>
        <input
          id={id('username')}
          type="email"
          autoComplete="email"
          spellCheck={false}
          aria-required
          value={values.username ?? ''}
          onChange={(e) => onChange('username', e.target.value)}
          onBlur={lookUp}
        />
      </div>
      {discover.isPending && asked === address ? (
        <p className="field-help" role="status">
          Looking up the mail servers for this address…
        </p>
      ) : null}
      {found ? (
        <div className="int-steps" role="status" data-testid="mail-servers">
          <p>
            {found.provider ? `${found.provider}: ` : ''}
            Sentient will sign in to {found.host}
            {found.smtp_host ? ` and send through ${found.smtp_host}` : ''}.
          </p>
          {found.note ? <p>{found.note}</p> : null}
          {found.app_password_url ? (
            <a href={found.app_password_url} target="_blank" rel="noreferrer noopener" className="int-docs">
              Make an app password for {where}
            </a>
          ) : (
            <p>Most providers need an app password, made in your account's security settings.</p>
          )}
        </div>
      ) : null}
      {notFound ? (
        <div className="notice notice-warn" role="alert" data-testid="mail-not-found">
          <p>{notFound.detail}</p>
          <button type="button" className="btn btn-quiet" onClick={() => onMore(null)}>
            Enter the servers
          </button>
        </div>
      ) : null}
      <div className="field">
        <label className="field-label" htmlFor={id('password')}>
          App password
        </label>
        <input
          id={id('password')}
          type="password"
          autoComplete="new-password"
          spellCheck={false}
          aria-required
          aria-describedby={`${id('password')}-help`}
          value={values.password ?? ''}
          onChange={(e) => onChange('password', e.target.value)}
        />
        <span className="field-help" id={`${id('password')}-help`}>
          Not your usual password: a separate one your provider makes for apps like Sentient.
        </span>
      </div>
      <button type="button" className="btn btn-quiet int-add-row" onClick={() => onMore(found)} data-testid="more-settings">
        More settings
      </button>
    </>
  );
}
