// One tool server: how it is reached, its state (with the engine's sentence when it failed), the
// values it still needs, on/off, Read only, Test, its keys (settings or headers, kept in the
// keychain), Remove after a confirm, and its tools.
import { useState } from 'react';
import type { McpServerInfo } from '../../api/calls';
import { useRemoveMcpServer, useSetMcpAccess, useSetMcpEnabled, useTestMcpServer } from './queries';
import { ErrorNotice } from '../../components/Page';
import { ConfirmDialog } from './Dialog';
import { ServerValuesDialog } from './ServerValuesDialog';
import { StatusBadge } from './StatusBadge';
import { Switch } from './Switch';
import { ToolList } from './ToolList';
import { needsWords, READ_ONLY_HELP, sentence, serverBadge, serverWhere, valueKeys } from './words';

export function ServerCard({ server }: { server: McpServerInfo }) {
  const [dialog, setDialog] = useState<'values' | 'remove' | null>(null);
  const test = useTestMcpServer();
  const enabled = useSetMcpEnabled();
  const access = useSetMcpAccess();
  const remove = useRemoveMcpServer();
  const name = server.name;
  const keys = valueKeys(server);
  const missing = server.missing_values;
  // While a change is on its way, its switch shows it (the engine's answer then confirms it). The
  // wish is kept in state set in the click itself, so the box never springs back for a moment.
  const [wantReadOnly, setWantReadOnly] = useState<boolean | null>(null);
  const [wantOn, setWantOn] = useState<boolean | null>(null);
  const readOnly = wantReadOnly ?? server.access === 'read';
  const on = wantOn ?? server.enabled;
  const badge = serverBadge(server);
  const count = server.tools.length;

  return (
    <li className="card int-app int-server" data-testid="server" data-server={name} data-status={server.status} aria-label={name}>
      <div className="int-app-head">
        <span className="int-avatar int-avatar-server" aria-hidden="true">
          {name.trim().charAt(0).toUpperCase()}
        </span>
        <div className="int-app-title">
          <h3>{name}</h3>
          <p className="muted int-server-where">
            {server.transport === 'http' ? 'At ' : 'Runs '}
            <code>{serverWhere(server)}</code>
          </p>
        </div>
        <StatusBadge
          badge={badge}
          detail={server.status === 'connected' && server.enabled ? (count === 1 ? '1 tool' : `${count} tools`) : null}
        />
      </div>

      {server.error && server.enabled ? (
        <div className="notice notice-error" role="alert" data-testid="server-error">
          <p>{sentence(server.error)}</p>
        </div>
      ) : null}
      {missing.length > 0 ? (
        <p className="int-missing" data-testid="missing">
          <span className="int-missing-mark" aria-hidden="true">
            !
          </span>
          {needsWords(missing)}.{' '}
          <button type="button" className="int-link-button" onClick={() => setDialog('values')}>
            Fill {missing.length === 1 ? 'it' : 'them'} in
          </button>
        </p>
      ) : null}

      <div className="int-app-actions">
        <button
          type="button"
          className="btn btn-quiet"
          disabled={test.isPending || !server.enabled}
          aria-label={`${test.isPending ? 'Testing…' : 'Test'} ${name}`}
          title={server.enabled ? undefined : 'Turn it on first.'}
          onClick={() => test.mutate(name)}
        >
          {test.isPending ? 'Testing…' : 'Test'}
        </button>
        {keys.length > 0 ? (
          <button
            type="button"
            className={missing.length > 0 ? 'btn btn-quiet int-key-button int-key-missing' : 'btn btn-quiet int-key-button'}
            aria-label={`Keys for ${name}`}
            onClick={() => setDialog('values')}
          >
            <KeyIcon /> Keys
          </button>
        ) : null}
        <button type="button" className="btn btn-quiet" aria-label={`Remove ${name}`} onClick={() => setDialog('remove')}>
          Remove
        </button>
        {test.data && !test.isPending ? (
          <span className={test.data.ok ? 'int-result int-result-ok' : 'int-result int-result-bad'} role="status" data-testid="test-result">
            {test.data.ok
              ? `Works: ${test.data.tools.length === 1 ? '1 tool' : `${test.data.tools.length} tools`}.`
              : `Didn't work: ${sentence(test.data.error ?? 'the server gave no answer')}`}
          </span>
        ) : null}
      </div>
      <ErrorNotice error={test.error} prefix="Couldn't test it." />

      <div className="int-switches">
        <Switch
          id={`server-${name}-on`}
          label="On"
          help="Sentient starts it and may use its tools."
          checked={on}
          disabled={enabled.isPending}
          onChange={(next) => {
            setWantOn(next);
            enabled.mutate({ name, enabled: next }, { onSettled: () => setWantOn(null) });
          }}
        />
        <Switch
          id={`server-${name}-read-only`}
          label="Read only"
          help={READ_ONLY_HELP}
          checked={readOnly}
          disabled={access.isPending}
          onChange={(next) => {
            setWantReadOnly(next);
            access.mutate({ name, access: next ? 'read' : 'read_write' }, { onSettled: () => setWantReadOnly(null) });
          }}
        />
      </div>
      {enabled.isPending ? (
        <p className="muted" role="status">
          {enabled.variables?.enabled ? 'Connecting…' : 'Turning it off…'}
        </p>
      ) : null}
      <ErrorNotice error={enabled.error} prefix="Couldn't turn it on or off." />
      <ErrorNotice error={access.error} prefix="Couldn't change Read only." />

      <ToolList tools={server.tools} readOnly={readOnly} label="Its tools" />

      {dialog === 'values' ? <ServerValuesDialog server={server} onClose={() => setDialog(null)} /> : null}
      {dialog === 'remove' ? (
        <ConfirmDialog
          title={`Remove ${name}?`}
          confirm="Remove"
          busy={remove.isPending}
          onCancel={() => {
            remove.reset();
            setDialog(null);
          }}
          onConfirm={() => remove.mutate(name, { onSuccess: () => setDialog(null) })}
          error={<ErrorNotice error={remove.error} prefix="Couldn't remove it." />}
        >
          <p>Sentient stops it and forgets it, with its saved keys. Its tools go away.</p>
        </ConfirmDialog>
      ) : null}
    </li>
  );
}

function KeyIcon() {
  return (
    <svg width="14" height="14" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" aria-hidden="true">
      <circle cx="8" cy="15" r="4" />
      <path d="M11 12l9-9M17 6l3 3M15 8l2 2" />
    </svg>
  );
}
