// One app: its state (Connected as…, Connecting…, Error with the engine's sentence, Not
// connected, Not available yet), Connect (a dialog from its setup fields), Test, Disconnect (after
// a confirm that says its tasks are turned off), Read only, its change feed with Sync now, its
// tools and, for email and calendars, privacy filters.
import { useState } from 'react';
import type { FeedStatus, Integration } from '../../api/calls';
import { useDisconnectIntegration, useSetIntegrationAccess, useTestIntegration } from './queries';
import { ErrorNotice } from '../../components/Page';
import { ConnectDialog } from './ConnectDialog';
import { ConfirmDialog } from './Dialog';
import { FeedLine } from './FeedLine';
import { PrivacyFilters } from './PrivacyFilters';
import { StatusBadge } from './StatusBadge';
import { Switch } from './Switch';
import { ToolList } from './ToolList';
import { appBadge, builtInName, notAvailable, READ_ONLY_HELP, sentence } from './words';

export function AppCard({ app, feed, now }: { app: Integration; feed?: FeedStatus; now: Date }) {
  const [dialog, setDialog] = useState<'connect' | 'disconnect' | null>(null);
  const test = useTestIntegration();
  const access = useSetIntegrationAccess();
  const disconnect = useDisconnectIntegration();
  const name = app.display_name;
  const unavailable = notAvailable(app);
  const builtin = app.auth_type === 'builtin';
  // While a change is on its way, the switch shows it (the engine's answer then confirms it); the
  // wish is state set in the click itself, so the box never springs back for a moment.
  const [wantReadOnly, setWantReadOnly] = useState<boolean | null>(null);
  const readOnly = wantReadOnly ?? app.access === 'read';
  const badge = appBadge(app);
  const canChange = app.tools.some((t) => t.risk !== 'read');
  // A keyed alternative has no tools of its own: the built-in's tools use it while connected.
  const standsIn = app.alternative_for ? builtInName(app.alternative_for) : null;
  const showAccess = !unavailable && !standsIn && (canChange || (app.connected && !builtin));

  return (
    <li
      className={unavailable ? 'card int-app int-app-unavailable' : 'card int-app'}
      data-testid="app"
      data-app={app.id}
      data-status={unavailable ? 'not_available' : app.status}
      aria-label={name}
    >
      <div className="int-app-head">
        <span className={`int-avatar int-avatar-${app.category}`} aria-hidden="true">
          {name.trim().charAt(0).toUpperCase()}
        </span>
        <div className="int-app-title">
          <h3>{name}</h3>
          <p className="muted">{app.description}</p>
        </div>
        <StatusBadge badge={badge} detail={app.connected && !builtin ? app.account_label : null} />
      </div>

      {unavailable ? (
        <p className="int-app-note muted" data-testid="not-available">
          {sentence(app.setup.instructions_md.trim() || `${name} isn't available in this version of Sentient yet`)}
        </p>
      ) : null}
      {!unavailable && app.status === 'error' && app.error ? (
        <div className="notice notice-error" role="alert" data-testid="app-error">
          <p>{sentence(app.error)}</p>
        </div>
      ) : null}
      {standsIn ? (
        <p className="int-app-note field-help" data-testid="alternative-for">
          {app.connected
            ? `${standsIn} uses ${name} now, and goes back to its free service if ${name} fails.`
            : `Optional: ${standsIn} works without it; with a key, ${standsIn} uses ${name} instead.`}
        </p>
      ) : null}
      {feed && app.connected ? <FeedLine feed={feed} now={now} /> : null}
      {!unavailable && app.triggers.length > 0 && !builtin ? (
        <p className="int-app-note field-help">Can start your tasks on: {app.triggers.map((t) => t.label).join(', ')}.</p>
      ) : null}

      {!unavailable && !builtin ? (
        <div className="int-app-actions">
          {!builtin && !app.connected ? (
            <button type="button" className="btn btn-primary" onClick={() => setDialog('connect')} aria-label={app.status === 'error' ? `Try again to connect ${name}` : `Connect ${name}`}>
              {app.status === 'error' ? 'Try again' : 'Connect'}
            </button>
          ) : null}
          {app.connected && !builtin ? (
            <button
              type="button"
              className="btn btn-quiet"
              disabled={test.isPending}
              aria-label={`${test.isPending ? 'Testing…' : 'Test'} ${name}`}
              onClick={() => test.mutate(app.id)}
            >
              {test.isPending ? 'Testing…' : 'Test'}
            </button>
          ) : null}
          {app.connected && !builtin ? (
            <button type="button" className="btn btn-quiet" aria-label={`Disconnect ${name}`} onClick={() => setDialog('disconnect')}>
              Disconnect
            </button>
          ) : null}
          {test.data && !test.isPending ? (
            <span className={test.data.ok ? 'int-result int-result-ok' : 'int-result int-result-bad'} role="status" data-testid="test-result">
              {test.data.ok ? 'Works: ' : "Didn't work: "}
              {sentence(test.data.detail)}
            </span>
          ) : null}
        </div>
      ) : null}
      <ErrorNotice error={test.error} prefix="Couldn't test it." />

      {showAccess ? (
        <Switch
          id={`access-${app.id}`}
          label="Read only"
          help={READ_ONLY_HELP}
          checked={readOnly}
          disabled={access.isPending}
          onChange={(on) => {
            setWantReadOnly(on);
            access.mutate({ id: app.id, access: on ? 'read' : 'read_write' }, { onSettled: () => setWantReadOnly(null) });
          }}
        />
      ) : null}
      <ErrorNotice error={access.error} prefix="Couldn't change Read only." />

      {!unavailable ? <ToolList tools={app.tools} readOnly={readOnly} /> : null}
      {!unavailable ? <PrivacyFilters app={app} /> : null}

      {dialog === 'connect' ? <ConnectDialog app={app} onClose={() => setDialog(null)} /> : null}
      {dialog === 'disconnect' ? (
        <ConfirmDialog
          title={`Disconnect ${name}?`}
          confirm="Disconnect"
          busy={disconnect.isPending}
          onCancel={() => {
            disconnect.reset();
            setDialog(null);
          }}
          onConfirm={() => disconnect.mutate(app.id, { onSuccess: () => setDialog(null) })}
          error={<ErrorNotice error={disconnect.error} prefix="Couldn't disconnect it." />}
        >
          <p>Sentient forgets how to sign in to {name}.</p>
          <p>Tasks that use {name} will be turned off.</p>
        </ConfirmDialog>
      ) : null}
    </li>
  );
}
