// The list of places on the left. Links are plain hash links, so the address keeps the page. On
// Chat, the chats are the sidebar's second level (below the places); in small windows, where the
// sidebar is icons, they are a panel that the Chats button beside it opens.
import { useEffect, type ReactElement } from 'react';
import {
  BellIcon,
  ChatIcon,
  DevicesIcon,
  GearIcon,
  MemoryIcon,
  PlugIcon,
  TasksIcon,
  type IconProps,
} from '../../components/icons';
import { ChatListIcon, SessionList, setChatsPanel, useChatsPanel } from '../chat';
import { hrefFor, PAGES, type PageId, type Route } from './routes';

const PAGE_ICONS: Record<PageId, (p: IconProps) => ReactElement> = {
  chat: ChatIcon,
  tasks: TasksIcon,
  notifications: BellIcon,
  memory: MemoryIcon,
  integrations: PlugIcon,
  devices: DevicesIcon,
  settings: GearIcon,
};

/** `unread` notifications badge Notifications; memories `waiting` for review badge Memory. */
export function Sidebar({ current, unread, waiting = 0 }: { current: Route; unread: number; waiting?: number }) {
  const chat = current === 'chat';
  const [panel, setPanel] = useChatsPanel();
  // Leaving Chat closes the chats panel, so it isn't open over the page on the way back.
  useEffect(() => {
    if (!chat) setChatsPanel(false);
  }, [chat]);
  return (
    <div className={`sidebar${chat ? ' sidebar-with-chats' : ''}${chat && panel ? ' chats-open' : ''}`}>
      <nav aria-label="Main">
        <ul>
          {PAGES.map((page, index) => {
            const Icon = PAGE_ICONS[page.id];
            const count = page.id === 'notifications' ? unread : page.id === 'memory' ? waiting : 0;
            const what = page.id === 'memory' ? 'waiting for review' : 'unread';
            return (
              <li key={page.id}>
                <a
                  href={hrefFor(page.id)}
                  className={page.id === current ? 'nav-link active' : 'nav-link'}
                  aria-current={page.id === current ? 'page' : undefined}
                  title={`${page.label} (Ctrl+${index + 1})`}
                >
                  <Icon />
                  <span className="nav-label">{page.label}</span>
                  {count > 0 ? (
                    <span className="badge" aria-label={`${count} ${what}`}>
                      {count > 99 ? '99+' : count}
                    </span>
                  ) : null}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      {chat ? (
        <>
          <button
            type="button"
            className="nav-link chats-toggle"
            aria-expanded={panel}
            aria-controls="chat-list"
            onClick={() => setPanel(!panel)}
          >
            <ChatListIcon />
            <span className="nav-label">{panel ? 'Hide chats' : 'Your chats'}</span>
          </button>
          <SessionList />
          {panel ? <div className="chats-backdrop" aria-hidden="true" onClick={() => setPanel(false)} /> : null}
        </>
      ) : null}
    </div>
  );
}
