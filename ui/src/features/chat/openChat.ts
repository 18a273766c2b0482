// Which chat is open, shared by the chat list in the sidebar and the Chat page. It lives in the
// address (`#/chat/<id>`; `#/chat` is a new chat), so a reload keeps the chat and the list and the
// page never disagree. A small store beside it says whether the chat list panel is open (in
// small windows the list is a panel opened from the sidebar or the page).
import { useEffect, useSyncExternalStore } from 'react';

export type OpenChat = {
  sessionId: string | null;
  /** Changes whenever a different chat (or a new one) is opened, so the page starts it fresh. */
  view: number;
};

/** The chat an address names: `#/chat/<id>` → id; anything else → null (a new chat). */
export function chatIdFromHash(hash: string): string | null {
  const m = /^#\/?chat\/([^/?&]+)/.exec(hash);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return null;
  }
}

export function chatHref(sessionId: string | null): string {
  return sessionId ? `#/chat/${encodeURIComponent(sessionId)}` : '#/chat';
}

const isChatAddress = (hash: string) => /^#\/?chat(?:[/?&]|$)/.test(hash) || hash === '' || hash === '#' || hash === '#/';

type Listener = () => void;
let current: OpenChat = { sessionId: null, view: 0 };
let panelOpen = false;
const listeners = new Set<Listener>();

function publish() {
  for (const l of listeners) l();
}

function subscribe(l: Listener) {
  listeners.add(l);
  return () => listeners.delete(l);
}

function setOpen(next: OpenChat) {
  current = next;
  publish();
}

/** Follows the address: another chat in it opens that chat. */
function syncFromAddress() {
  const hash = window.location.hash;
  if (!isChatAddress(hash)) return;
  const id = chatIdFromHash(hash);
  if (id !== current.sessionId) setOpen({ sessionId: id, view: current.view + 1 });
}

/** The open chat; follows the address while mounted. */
export function useOpenChat(): OpenChat {
  useEffect(() => {
    syncFromAddress();
    window.addEventListener('hashchange', syncFromAddress);
    return () => window.removeEventListener('hashchange', syncFromAddress);
  }, []);
  return useSyncExternalStore(subscribe, () => current);
}

/** Opens a chat from the list, or a new one (null), and closes the list panel. */
export function openChat(sessionId: string | null) {
  panelOpen = false;
  if (sessionId === null || sessionId !== current.sessionId) setOpen({ sessionId, view: current.view + 1 });
  else publish();
  const href = chatHref(sessionId);
  if (window.location.hash !== href) window.location.hash = href;
}

/**
 * A new chat got its id from the engine: the address names it, the conversation stays as it is.
 * `view` is the conversation's; a chat left behind (another one opened since) changes nothing.
 */
export function chatStarted(sessionId: string, view: number) {
  if (view !== current.view || current.sessionId === sessionId) return;
  setOpen({ ...current, sessionId });
  const href = chatHref(sessionId);
  if (isChatAddress(window.location.hash) && window.location.hash !== href) {
    window.history.replaceState(window.history.state, '', href);
  }
}

/** Whether the chat list panel is open (it only matters in small windows). */
export function useChatsPanel(): [boolean, (open: boolean) => void] {
  const open = useSyncExternalStore(subscribe, () => panelOpen);
  return [open, setChatsPanel];
}

export function setChatsPanel(open: boolean) {
  if (panelOpen === open) return;
  panelOpen = open;
  publish();
}
