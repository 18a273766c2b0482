// The list of places on the left. Links are plain hash links, so the address keeps the page.
import { PAGE_ICONS } from '../../components/icons';
import { hrefFor, PAGES, type PageId } from './routes';

export function Sidebar({ current, unread }: { current: PageId; unread: number }) {
  return (
    <nav className="sidebar" aria-label="Main">
      <ul>
        {PAGES.map((page, index) => {
          const Icon = PAGE_ICONS[page.id];
          const showBadge = page.id === 'notifications' && unread > 0;
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
                {showBadge ? (
                  <span className="badge" aria-label={`${unread} unread`}>
                    {unread > 99 ? '99+' : unread}
                  </span>
                ) : null}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
