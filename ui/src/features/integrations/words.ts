// The Integrations page's words: categories, states, risks, times and a few small parsers, kept
// apart from the components so they read (and are tested) as plain functions.
import type { FeedStatus, FeedSyncReply, Integration, McpServerInfo } from '../../api/calls';

/** The categories in the order the page shows them, with their headings. */
export const CATEGORIES = [
  { id: 'productivity', label: 'Productivity' },
  { id: 'communication', label: 'Communication' },
  { id: 'knowledge', label: 'Knowledge' },
  { id: 'development', label: 'Development' },
  { id: 'utilities', label: 'Utilities' },
  { id: 'core', label: 'Built in' },
] as const;

/** Apps grouped by category in the page's order; an unknown category goes under Utilities. */
export function groupByCategory(apps: Integration[]): Array<{ id: string; label: string; apps: Integration[] }> {
  const known = new Set<string>(CATEGORIES.map((c) => c.id));
  return CATEGORIES.map((c) => ({
    id: c.id,
    label: c.label,
    apps: apps.filter((a) => a.category === c.id || (c.id === 'utilities' && !known.has(a.category))),
  })).filter((g) => g.apps.length > 0);
}

/** Tool servers are listed as apps too (`mcp_<name>`); the page shows them in their own section. */
export function isToolServerApp(app: Integration): boolean {
  return app.auth_type === 'mcp' || app.id.startsWith('mcp_');
}

// Apps this version can't connect yet. The engine says so when one is connected (400) and in its
// setup text; the ids are the catalog's.
const NOT_YET = new Set(['slack', 'notion']);
const NOT_YET_WORDS = /isn't available in this version of Sentient yet/i;

/** Whether the app can't be connected in this version (shown as "Not available yet"). */
export function notAvailable(app: Integration): boolean {
  if (app.connected) return false;
  return NOT_YET.has(app.id) || NOT_YET_WORDS.test(app.setup.instructions_md);
}

/** Whether an error is the engine's "isn't available in this version" sentence. */
export function isNotAvailableError(detail: string): boolean {
  return NOT_YET_WORDS.test(detail);
}

export type Badge = { tone: 'ok' | 'busy' | 'error' | 'off' | 'muted'; words: string };

/** The badge an app shows. */
export function appBadge(app: Integration): Badge {
  if (notAvailable(app)) return { tone: 'muted', words: 'Not available yet' };
  if (app.auth_type === 'builtin') return { tone: 'ok', words: 'Always on' };
  switch (app.status) {
    case 'connected':
      return { tone: 'ok', words: 'Connected' };
    case 'connecting':
      return { tone: 'busy', words: 'Connecting…' };
    case 'error':
      return { tone: 'error', words: 'Error' };
    default:
      return { tone: 'off', words: 'Not connected' };
  }
}

/** The badge a tool server shows. */
export function serverBadge(server: McpServerInfo): Badge {
  if (!server.enabled || server.status === 'disabled') return { tone: 'off', words: 'Off' };
  switch (server.status) {
    case 'connected':
      return { tone: 'ok', words: 'Connected' };
    case 'connecting':
      return { tone: 'busy', words: 'Connecting…' };
    case 'needs_sign_in':
      return { tone: 'error', words: 'Needs sign-in' };
    case 'error':
      return { tone: 'error', words: 'Error' };
    default:
      return { tone: 'off', words: 'Not connected' };
  }
}

/** What a tool may do, in words. */
export const RISK_WORDS: Record<string, string> = {
  read: 'Looks things up',
  write: 'Changes things',
  send: 'Sends',
  exec: 'Runs code',
};

export function riskWords(risk: string): string {
  return RISK_WORDS[risk] ?? 'Changes things';
}

export const READ_ONLY_HELP = "Sentient can look things up but can't change, send or delete anything.";

/** "just now", "2 min ago", "3 hours ago", "yesterday", "4 days ago". */
export function agoWords(iso: string | null | undefined, now: Date): string | null {
  if (!iso) return null;
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return null;
  const s = Math.max(0, Math.round((now.getTime() - then) / 1000));
  if (s < 60) return 'just now';
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 24) return h === 1 ? '1 hour ago' : `${h} hours ago`;
  const d = Math.floor(h / 24);
  return d === 1 ? 'yesterday' : `${d} days ago`;
}

/** "in 30 seconds", "in 5 min", "in 2 hours". */
export function inWords(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return s === 1 ? 'in 1 second' : `in ${s} seconds`;
  const m = Math.round(s / 60);
  if (m < 60) return `in ${m} min`;
  const h = Math.round(m / 60);
  return h === 1 ? 'in 1 hour' : `in ${h} hours`;
}

/** The feed line of a connected app: when it was last checked, or what is wrong. */
export function feedWords(feed: FeedStatus, now: Date): string {
  const checked = agoWords(feed.last_sync_at, now);
  switch (feed.status) {
    case 'starting':
      return 'Getting ready to watch for changes…';
    case 'off':
      return feed.note ?? 'Not watching for changes.';
    case 'error': {
      const again = feed.next_attempt_at ? inWords((Date.parse(feed.next_attempt_at) - now.getTime()) / 1000) : null;
      const why = feed.last_error ? sentence(feed.last_error) : "The last check didn't work.";
      return again ? `${why} Sentient tries again ${again}.` : why;
    }
    default:
      return checked ? `Checked ${checked}` : 'Not checked yet';
  }
}

/** What a Sync now did, in one sentence. */
export function syncWords(reply: FeedSyncReply): string {
  if (reply.skipped) return reply.skipped === 'not connected' ? "It isn't connected." : sentence(reply.skipped);
  if (!reply.ok) {
    const why = reply.error ? sentence(reply.error) : "The check didn't work.";
    return typeof reply.retry_in_s === 'number' ? `${why} Sentient tries again ${inWords(reply.retry_in_s)}.` : why;
  }
  if (reply.rebaselined) return 'Checked. Sentient watches for changes from now on.';
  if (reply.emitted > 0) return reply.emitted === 1 ? 'Checked: 1 new item.' : `Checked: ${reply.emitted} new items.`;
  return 'Checked: nothing new.';
}

/** Ends a sentence with a full stop when it has none. */
export function sentence(text: string): string {
  const t = text.trim();
  return /[.!?…]$/.test(t) ? t : `${t}.`;
}

/** How a tool server is reached, in one line: its command with arguments, or its address. */
export function serverWhere(server: McpServerInfo): string {
  if (server.transport === 'http') return server.url;
  return [server.command, ...server.args.map(quoteArg)].join(' ');
}

function quoteArg(arg: string): string {
  return /[\s"']/.test(arg) || arg === '' ? `"${arg.replace(/(["\\])/g, '\\$1')}"` : arg;
}

/**
 * Splits arguments typed on one line the way a shell would for plain cases: spaces separate
 * them, quotes ("…" or '…') keep spaces inside one, and a backslash keeps the next character.
 */
export function splitArgs(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let started = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i += 1) {
    const ch = line[i];
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) current += line[++i];
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      current += line[++i];
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) out.push(current);
      current = '';
      started = false;
    } else {
      current += ch;
      started = true;
    }
  }
  if (started) out.push(current);
  return out;
}

/** The names of the values a server takes: its settings (a program) or headers (a web address). */
export function valueKeys(server: McpServerInfo): string[] {
  return server.transport === 'http' ? server.header_keys : server.env_keys;
}

/** "Needs API_KEY", "Needs API_KEY and TOKEN". */
export function needsWords(missing: string[]): string {
  if (missing.length === 0) return '';
  if (missing.length === 1) return `Needs ${missing[0]}`;
  return `Needs ${missing.slice(0, -1).join(', ')} and ${missing.at(-1)}`;
}

export const FILTER_FIELDS = [
  { key: 'keywords', label: 'Words', help: 'Emails and events that contain these words.', placeholder: 'Add a word, such as salary' },
  { key: 'emails', label: 'People', help: 'Messages from or to these addresses.', placeholder: 'Add an address' },
  { key: 'labels', label: 'Labels and folders', help: 'Everything with these labels or in these folders.', placeholder: 'Add a label or folder' },
] as const;
export type FilterField = (typeof FILTER_FIELDS)[number]['key'];

/** What a keyed alternative's `alternative_for` is called on the page. */
export function builtInName(id: string): string {
  const names: Record<string, string> = { weather: 'Weather', news: 'News', maps: 'Maps', internet_search: 'Web search' };
  return names[id] ?? id;
}
