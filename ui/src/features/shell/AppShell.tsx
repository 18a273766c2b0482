// The app once it is set up: title bar, stop banner, sidebar and the current page. Chat, where
// the window opens, comes with the shell; the other pages load when first opened (their index).
import { useEffect } from 'react';
import type { Bootstrap } from '../../api';
import { useApi } from '../../api/context';
import { ChatPage } from '../chat';
import { DevicesPage } from '../devices';
import { IntegrationsPage } from '../integrations';
import { MemoryPage, useMemoryReview } from '../memory';
import { NotificationsPage, useUnreadCount } from '../notifications';
import { closeModelSetup, ModelBar, ModelStep, useModelSetup } from '../onboarding';
import { SettingsPage } from '../settings';
import { StopBanner } from '../stop';
import { TasksPage } from '../tasks';
import { LazyPart } from '../../components/LazyPart';
import { Page } from '../../components/Page';
import { hrefFor, PAGES, useHashRoute, useNavigationKeys, type Route } from './routes';
import { Sidebar } from './Sidebar';
import { TitleBar } from './TitleBar';

function CurrentPage({ page, bootstrap }: { page: Route; bootstrap: Bootstrap }) {
  switch (page) {
    case 'chat':
      return <ChatPage bootstrap={bootstrap} />;
    case 'tasks':
      return <TasksPage />;
    case 'notifications':
      return <NotificationsPage />;
    case 'memory':
      return <MemoryPage />;
    case 'integrations':
      return <IntegrationsPage />;
    case 'devices':
      return <DevicesPage />;
    case 'settings':
      return <SettingsPage bootstrap={bootstrap} />;
    case 'not_found':
      return (
        <Page title="Page not found" intro="There is no page at this address in Sentient.">
          <p>
            <a className="btn btn-primary" href={hrefFor('chat')}>
              Go to Chat
            </a>
          </p>
        </Page>
      );
  }
}

export function AppShell({ bootstrap, connectionLost }: { bootstrap: Bootstrap; connectionLost: boolean }) {
  const page = useHashRoute();
  const api = useApi();
  const unread = useUnreadCount(bootstrap.unread_notifications);
  const review = useMemoryReview();
  useNavigationKeys();
  // Onboarding's model step, until it is done (also after a reload, or opened again).
  const modelSetup = useModelSetup();

  useEffect(() => {
    const label = page === 'not_found' ? 'Page not found' : PAGES.find((p) => p.id === page)?.label;
    api.setTitle(label ? `${label} · Sentient` : 'Sentient');
  }, [api, page]);

  if (modelSetup === 'pending' || modelSetup === 'reopened') {
    return (
      <LazyPart>
        {modelSetup === 'pending' ? <ModelStep firstRun /> : <ModelStep firstRun={false} onClose={closeModelSetup} />}
      </LazyPart>
    );
  }

  return (
    <div className="app">
      <TitleBar />
      <StopBanner />
      {connectionLost ? (
        <div className="notice notice-warn connection-notice" role="status">
          Lost the live connection to Sentient. Trying to reconnect… If this stays, make sure Sentient is still running.
        </div>
      ) : null}
      <div className="app-body">
        <Sidebar current={page} unread={unread} waiting={review.data?.count ?? 0} />
        <main className="content" key={page}>
          {page === 'chat' || page === 'tasks' ? <ModelBar /> : null}
          <LazyPart>
            <CurrentPage page={page} bootstrap={bootstrap} />
          </LazyPart>
        </main>
      </div>
    </div>
  );
}
