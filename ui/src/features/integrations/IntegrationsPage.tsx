// The Integrations page: the apps Sentient can work with, grouped by kind, each with its state,
// Connect / Test / Disconnect, Read only, its feed and its tools; then the tool servers (MCP).
// Live: `integration.updated` replaces an app as it changes (a sign-in finishing, an error).
import { useEffect, useState } from 'react';
import type { FeedStatus } from '../../api/calls';
import { useFeeds, useIntegrations } from './queries';
import { EmptyState, ErrorNotice, Loading, Page } from '../../components/Page';
import { PlugIcon } from '../../components/icons';
import { AppCard } from './AppCard';
import { ToolServers } from './ToolServers';
import { groupByCategory, isToolServerApp } from './words';
import './integrations.css';

/** The time now, again every `ms` (for "Checked 2 min ago"). */
function useNow(ms: number): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

export function IntegrationsPage() {
  const apps = useIntegrations();
  const feeds = useFeeds();
  const now = useNow(30_000);
  const feedOf = (id: string): FeedStatus | undefined => feeds.data?.find((f) => f.source === id);

  let body;
  if (apps.isPending) body = <Loading label="Loading apps…" />;
  else if (apps.error) body = <ErrorNotice error={apps.error} prefix="Couldn't load your apps." onRetry={() => void apps.refetch()} />;
  else {
    const groups = groupByCategory(apps.data.filter((a) => !isToolServerApp(a)));
    const connected = apps.data.filter((a) => !isToolServerApp(a) && a.connected && a.auth_type !== 'builtin').length;
    body =
      groups.length === 0 ? (
        <EmptyState icon={<PlugIcon size={28} />} title="No apps">
          <p>This version of Sentient has no apps to connect. Tool servers below can still give it more tools.</p>
        </EmptyState>
      ) : (
        <>
          <p className="muted int-summary" data-testid="summary">
            {connected === 0 ? 'No apps connected yet.' : connected === 1 ? '1 app connected.' : `${connected} apps connected.`}
          </p>
          {groups.map((g) => (
            <section key={g.id} className="int-section" aria-labelledby={`apps-${g.id}`}>
              <h2 id={`apps-${g.id}`} className="int-group-title">
                {g.label}
              </h2>
              <ul className="int-list" aria-label={g.label}>
                {g.apps.map((a) => (
                  <AppCard key={a.id} app={a} feed={feedOf(a.id)} now={now} />
                ))}
              </ul>
            </section>
          ))}
        </>
      );
  }

  return (
    <Page title="Integrations" intro="The apps and accounts Sentient can work with for you. You choose what it may read and do in each one.">
      {body}
      <ToolServers />
    </Page>
  );
}
