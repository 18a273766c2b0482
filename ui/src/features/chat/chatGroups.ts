// The chat list's groups: Today, Yesterday and Earlier, by each chat's last activity on the
// calendar of the person's time zone (Settings > General; "auto" is this computer's).
import type { Session } from '../../api';

export type ChatGroup = { label: 'Today' | 'Yesterday' | 'Earlier'; sessions: Session[] };

/** The zone to read days in: the setting's IANA name, or this computer's for "auto", empty or unknown. */
export function zoneFor(setting: string | null | undefined): string | undefined {
  const name = (setting ?? '').trim();
  if (!name || name.toLowerCase() === 'auto') return undefined;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return name;
  } catch {
    return undefined;
  }
}

/** The calendar day (YYYY-MM-DD) a moment falls on in `timeZone`. */
export function dayIn(at: Date, timeZone: string | undefined): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** The day before a YYYY-MM-DD day (calendar arithmetic, so clock changes don't matter). */
function dayBefore(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d - 1)).toISOString().slice(0, 10);
}

/** When the chat was last used: its latest message, else when it was made. */
export function lastActivity(s: Pick<Session, 'updated_at' | 'created_at'>): number {
  const at = Date.parse(s.updated_at || s.created_at);
  return Number.isNaN(at) ? 0 : at;
}

/** The non-empty groups in order, newest chat first in each. */
export function groupChats(sessions: Session[], now: Date, timeZone: string | undefined): ChatGroup[] {
  const today = dayIn(now, timeZone);
  const yesterday = dayBefore(today);
  const groups: ChatGroup[] = [
    { label: 'Today', sessions: [] },
    { label: 'Yesterday', sessions: [] },
    { label: 'Earlier', sessions: [] },
  ];
  const sorted = [...sessions].sort((a, b) => lastActivity(b) - lastActivity(a));
  for (const s of sorted) {
    const day = dayIn(new Date(lastActivity(s)), timeZone);
    // A clock slightly ahead of this computer's still counts as today.
    const at = day >= today ? 0 : day === yesterday ? 1 : 2;
    groups[at].sessions.push(s);
  }
  return groups.filter((g) => g.sessions.length > 0);
}
