// Which page is showing lives in the URL hash (`#/tasks`), so a reload keeps the page.
import { useEffect, useState } from 'react';

export const PAGES = [
  { id: 'chat', label: 'Chat' },
  { id: 'tasks', label: 'Tasks' },
  { id: 'notifications', label: 'Notifications' },
  { id: 'memory', label: 'Memory' },
  { id: 'integrations', label: 'Integrations' },
  { id: 'devices', label: 'Devices' },
  { id: 'settings', label: 'Settings' },
] as const;

export type PageId = (typeof PAGES)[number]['id'];

export const DEFAULT_PAGE: PageId = 'chat';

/** What an address shows: a page, or "Page not found" for an address that names none. */
export type Route = PageId | 'not_found';

export function pageFromHash(hash: string): Route {
  const id = hash.replace(/^#\/?/, '').split(/[/?&]/)[0];
  // An address that only carries the window's token (`#token=…`, read by the API layer) is Chat.
  if (id === '' || id.startsWith('token=')) return DEFAULT_PAGE;
  return PAGES.some((p) => p.id === id) ? (id as PageId) : 'not_found';
}

export function hrefFor(id: PageId): string {
  return `#/${id}`;
}

export function useHashRoute(): Route {
  const [page, setPage] = useState<Route>(() => pageFromHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setPage(pageFromHash(window.location.hash));
    window.addEventListener('hashchange', onChange);
    onChange();
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return page;
}

/** Ctrl+1…7 (Cmd on macOS) jumps to the sidebar's pages in order; anything else is not ours. */
export function pageForKey(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>): PageId | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey) return null;
  const index = Number.parseInt(e.key, 10) - 1;
  return Number.isInteger(index) && index >= 0 && index < PAGES.length ? PAGES[index].id : null;
}

export function useNavigationKeys(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const page = pageForKey(e);
      if (!page) return;
      e.preventDefault();
      window.location.hash = hrefFor(page);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
