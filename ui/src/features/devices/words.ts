// How devices read on the page: kinds, connections, capabilities, battery, when they were last
// seen, how long a pairing code has left, and a device's refusal as one plain sentence.
import type { InvokeReply, Node } from '../../api';

/** The desktop app's own node: always there, never removed. */
export const DESKTOP_NODE_ID = 'desktop';

export const KIND_WORDS: Record<string, string> = {
  phone: 'Phone',
  glasses: 'Smart glasses',
  watch: 'Watch',
  desktop: 'This computer',
  custom: 'Device',
};

export function kindWords(kind: string): string {
  return KIND_WORDS[kind] ?? 'Device';
}

export function connectionWords(node: Pick<Node, 'online' | 'connection'>): string {
  if (!node.online) return 'Offline';
  if (node.connection === 'lan') return 'On your network';
  if (node.connection === 'local') return 'On this computer';
  return 'Connected';
}

export const CAPABILITY_WORDS: Record<string, string> = {
  'camera.photo': 'Camera',
  'screen.capture': 'Screen',
  'location.get': 'Location',
  'notify.show': 'Notifications',
  'display.text': 'Display',
  'display.card': 'Cards',
  'audio.play': 'Speaker',
  'audio.pcm': 'Speaker',
  speak: 'Speech',
  'mic.stream': 'Microphone',
  'clipboard.read': 'Clipboard',
  'clipboard.write': 'Clipboard',
  'button.events': 'Button',
  battery: 'Battery',
};

/** What a device can do, in words, each once. */
export function capabilityWords(capabilities: string[]): string[] {
  const out: string[] = [];
  for (const cap of capabilities) {
    const words = CAPABILITY_WORDS[cap] ?? cap;
    if (!out.includes(words)) out.push(words);
  }
  return out;
}

/** "80%", "80%, charging", or null when the device doesn't say. */
export function batteryWords(node: Pick<Node, 'battery' | 'charging'>): string | null {
  if (node.battery === null || node.battery === undefined) return node.charging ? 'Charging' : null;
  const pct = `${Math.round(node.battery)}%`;
  return node.charging ? `${pct}, charging` : pct;
}

/** "just now", "5 minutes ago", "yesterday", "3 days ago", or the date. */
export function relativeTime(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return 'never';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const seconds = Math.max(0, Math.round((now.getTime() - then) / 1000));
  if (seconds < 60) return 'just now';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return minutes === 1 ? '1 minute ago' : `${minutes} minutes ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return hours === 1 ? '1 hour ago' : `${hours} hours ago`;
  const days = Math.floor(hours / 24);
  if (days === 1) return 'yesterday';
  if (days < 7) return `${days} days ago`;
  return new Date(then).toLocaleDateString(undefined, { day: 'numeric', month: 'long', year: 'numeric' });
}

/** "Online now", or when an offline device was last heard from. */
export function seenWords(node: Pick<Node, 'online' | 'last_seen_at'>, now: Date = new Date()): string {
  if (node.online) return 'Online now';
  return node.last_seen_at ? `Last seen ${relativeTime(node.last_seen_at, now)}` : 'Not seen yet';
}

/** Time left until `expiresAt` as m:ss (0:00 once past). */
export function countdown(expiresAt: string, now: number = Date.now()): { left: number; words: string } {
  const left = Math.max(0, Math.floor((Date.parse(expiresAt) - now) / 1000));
  const words = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
  return { left, words };
}

const CODE_WORDS: Record<string, string> = {
  offline: 'The device is offline.',
  unsupported: "The device can't do that.",
  timeout: "The device didn't answer in time.",
  not_allowed: "Sentient isn't allowed to do that. You can change this in Settings.",
  bad_upload: "The device's photo didn't arrive whole. Try again.",
};

/** Makes sure a sentence ends like one. */
function sentence(text: string): string {
  const t = text.trim();
  if (!t) return '';
  const first = t[0].toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(first) ? first : `${first}.`;
}

/** Why a device couldn't do it, as one plain sentence (its error is a string or `{code, message}`). */
export function replyError(reply: InvokeReply): string {
  const e = reply.error;
  if (typeof e === 'string' && e.trim()) return sentence(e);
  if (e && typeof e === 'object' && typeof e.message === 'string' && e.message.trim()) return sentence(e.message);
  const code = reply.code ?? (e && typeof e === 'object' && typeof e.code === 'string' ? e.code : null);
  if (code && CODE_WORDS[code]) return CODE_WORDS[code];
  return "The device couldn't do it.";
}

/**
 * The engine's QR code as an image address. An SVG shown through <img> can't run scripts or
 * reach the page, so the markup never becomes part of the window's own HTML.
 */
export function svgImageSrc(svg: string): string | null {
  const text = svg.trim();
  if (!/^(<\?xml[^>]*>\s*)?<svg[\s>]/i.test(text)) return null;
  return `data:image/svg+xml;utf8,${encodeURIComponent(text)}`;
}

/**
 * True when `url` points at this computer only (127.x.x.x, localhost, ::1, 0.0.0.0): a phone
 * that opens it reaches itself, not Sentient. Anything that isn't a URL counts as unreachable.
 */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return true;
  }
  host = host.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '::' || host === '0.0.0.0' || host === '') return true;
  if (/^::ffff:127\./.test(host)) return true;
  return /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The listener's refusal as one sentence, however the engine worded it; a setting's key
 * ("nodes.lan_port") reads as the words Settings shows for it.
 */
export function lanErrorWords(error: string): string {
  const words = error
    .replace(/\bnodes\.lan_port in Settings\b/g, 'port in Settings > Devices')
    .replace(/\bnodes\.lan_port\b/g, 'port for devices on your network');
  return sentence(words);
}

/** How many bytes of the fingerprint the short code shows (the reference node's `SHORT_CODE_BYTES`). */
const SHORT_CODE_BYTES = 6;

/**
 * The certificate fingerprint as a short code to compare: its first 6 bytes in upper-case pairs,
 * the way a phone's browser shows a certificate's SHA-256 fingerprint ("3F A9 0C 17 B2 44"), and
 * the same code `sentient node` prints once paired. Null when it isn't a hex fingerprint.
 */
export function shortFingerprint(fingerprint: string | null | undefined): string | null {
  const hex = (fingerprint ?? '').replace(/[:\s]/g, '').toUpperCase();
  if (hex.length < SHORT_CODE_BYTES * 2 || !/^[0-9A-F]+$/.test(hex)) return null;
  return (hex.slice(0, SHORT_CODE_BYTES * 2).match(/../g) ?? []).join(' ');
}
