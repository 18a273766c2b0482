// Browser mode: the engine serves this window at `/` and answers `/api/*` and `/ws` on the same
// origin. The engine's web link is `http://127.0.0.1:PORT/#token=TOKEN`; the token is taken from
// the address bar once, kept in sessionStorage, and removed from the address bar so it never
// ends up in a URL a server could log or a bookmark could keep.
import { buildCalls, type Doors } from './calls';
import type { SentientApi } from './sentientApi';
import { ApiError, detailToText, UNREACHABLE, UNREACHABLE_DETAIL } from './errors';
import { dispatch, isChatEvent, toEngineEvent } from './events';
import type {
  ChatEventListener,
  CheckupLine,
  Config,
  EngineEvent,
  EventListener,
  PullProgress,
  Roles,
} from './types';

export const TOKEN_KEY = 'sentient.token';
export const PING_MS = 25_000;
const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 10_000;
/** How long the socket stays open after its last listener leaves (covers React remounts). */
const IDLE_CLOSE_MS = 1_000;

export type HttpTransportOptions = {
  origin?: string;
  fetch?: typeof fetch;
  WebSocket?: typeof WebSocket;
  storage?: Storage;
  location?: Location;
  history?: History;
  pingMs?: number;
};

/**
 * Reads `token` from the location hash (`#token=...`, also `#/tasks&token=...`), stores it and
 * removes it from the address bar. Without one in the hash, the stored token (from an earlier
 * load in this tab) is used.
 */
export function takeToken(
  location: Location = window.location,
  history: History = window.history,
  storage: Storage | undefined = safeSessionStorage(),
): string | null {
  const hash = location.hash.replace(/^#/, '');
  const parts = hash.split('&');
  const index = parts.findIndex((p) => p.startsWith('token=') || /[?/]token=/.test(p));
  if (index === -1) return storage?.getItem(TOKEN_KEY) ?? null;

  const part = parts[index];
  const at = part.indexOf('token=');
  const token = decodeURIComponent(part.slice(at + 'token='.length));
  // Whatever came before `token=` in that part (e.g. a `/tasks?` route) stays.
  const before = part.slice(0, at).replace(/[?]$/, '');
  const rest = [...parts.slice(0, index), ...(before ? [before] : []), ...parts.slice(index + 1)]
    .filter((p) => p !== '')
    .join('&');
  try {
    storage?.setItem(TOKEN_KEY, token);
  } catch {
    // Storage can be off (private mode); the token still works for this page load.
  }
  history.replaceState(history.state, '', location.pathname + location.search + (rest ? `#${rest}` : ''));
  return token || null;
}

function safeSessionStorage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}

export function createHttpApi(options: HttpTransportOptions = {}): SentientApi {
  const origin = (options.origin ?? window.location.origin).replace(/\/$/, '');
  const fetchImpl = options.fetch ?? window.fetch.bind(window);
  const token = takeToken(
    options.location ?? window.location,
    options.history ?? window.history,
    options.storage ?? safeSessionStorage(),
  );

  /** Sends one request; an answer that is not OK becomes ApiError with the engine's detail. */
  async function send(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<Response> {
    const headers: Record<string, string> = { Accept: accept };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';

    let res: Response;
    try {
      res = await fetchImpl(`${origin}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch {
      throw new ApiError(UNREACHABLE, UNREACHABLE_DETAIL);
    }

    if (!res.ok) {
      let detail: unknown;
      try {
        detail = ((await res.json()) as { detail?: unknown } | null)?.detail;
      } catch {
        detail = undefined;
      }
      throw new ApiError(res.status, detailToText(detail, res.status));
    }
    return res;
  }

  async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await send(method, path, body);
    if (res.status === 204) return undefined as T;
    try {
      return (await res.json()) as T;
    } catch {
      throw new ApiError(502, UNREADABLE_DETAIL);
    }
  }

  const socket = new LiveSocket(wsUrl(origin, token), options.WebSocket ?? window.WebSocket, options.pingMs ?? PING_MS);
  const turns = new ChatTurns(socket);

  /** A multipart upload (fetch sets the boundary itself). */
  async function upload<T>(path: string, form: FormData): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    let res: Response;
    try {
      res = await fetchImpl(`${origin}${path}`, { method: 'POST', headers, body: form, cache: 'no-store', credentials: 'omit' });
    } catch {
      throw new ApiError(UNREACHABLE, UNREACHABLE_DETAIL);
    }
    if (!res.ok) {
      let detail: unknown;
      try {
        detail = ((await res.json()) as { detail?: unknown } | null)?.detail;
      } catch {
        detail = undefined;
      }
      throw new ApiError(res.status, detailToText(detail, res.status));
    }
    try {
      return (await res.json()) as T;
    } catch {
      throw new ApiError(502, UNREADABLE_DETAIL);
    }
  }

  return {
    // The plain calls, each as its entry in calls.ts says; only the others are written here.
    ...buildCalls(<R,>(doors: Doors<R>) => request<R>(doors.http.method, doors.http.path, doors.http.body)),
    transport: 'http',
    // There is no GET for the roles alone: they are the role fields of the models settings.
    getRoles: async () => rolesOf(await request<Config>('GET', '/api/config')),
    pullModel: async (name, onProgress) => {
      const res = await send('POST', '/api/models/ollama/pull', { name }, 'application/x-ndjson');
      if (!res.body) throw new ApiError(502, UNREADABLE_DETAIL);
      await readNdjson<PullProgress>(res.body, onProgress);
    },
    modelCheckup: async (body, onLine) => {
      const res = await send('POST', '/api/models/checkup', body, 'application/x-ndjson');
      if (!res.body) throw new ApiError(502, UNREADABLE_DETAIL);
      await readNdjson<CheckupLine>(res.body, onLine);
    },
    uploadFile: (file, name, source = 'upload') => {
      const form = new FormData();
      form.append('file', file, name);
      form.append('source', source);
      return upload('/api/files', form);
    },
    fileContent: async (name) => {
      const path = name.split('/').map(encodeURIComponent).join('/');
      const res = await send('GET', `/api/files/content/${path}`, undefined, '*/*');
      return res.blob();
    },
    importMemories: (file, name) => {
      const form = new FormData();
      form.append('file', file, name);
      return upload('/api/memories/import', form);
    },
    chatSend: (body, onEvent) => turns.send(body, onEvent),
    chatSteer: (body, onEvent) => turns.steer(body, onEvent),
    chatRegenerate: (body, onEvent) => turns.regenerate(body, onEvent),
    chatCancel: (sessionId) => socket.sendWhenOpen({ type: 'chat.cancel', session_id: sessionId }),
    setTitle: (title) => {
      document.title = title;
    },
    subscribe: (listener) => socket.add(listener),
  };
}

const UNREADABLE_DETAIL = "Sentient's engine sent an answer the window couldn't read. Try reloading.";

function rolesOf(config: Config): Roles {
  const m = config.models;
  return {
    primary: m.primary,
    fast: m.fast,
    planner: m.planner,
    executor: m.executor,
    embedding: m.embedding,
    vision: m.vision,
    voice: m.voice,
  };
}

/**
 * Reads a streamed NDJSON body line by line as it arrives, calling `onLine` with each parsed line
 * (a line may be split across chunks, and a chunk may hold several lines). Blank lines are
 * skipped. A line that is not JSON, or the connection dropping midway, throws ApiError.
 */
export async function readNdjson<T>(body: ReadableStream<Uint8Array>, onLine: (line: T) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const emit = (raw: string) => {
    const text = raw.trim();
    if (text === '') return;
    let parsed: T;
    try {
      parsed = JSON.parse(text) as T;
    } catch {
      throw new ApiError(502, UNREADABLE_DETAIL);
    }
    onLine(parsed);
  };
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        throw new ApiError(UNREACHABLE, LOST_DETAIL);
      }
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        emit(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
      }
    }
    emit(buffer + decoder.decode());
  } catch (e) {
    // Stop the download's answer too, so nothing keeps streaming that nobody reads.
    await reader.cancel().catch(() => {});
    throw e;
  } finally {
    reader.releaseLock();
  }
}

const LOST_DETAIL = "Lost the connection to Sentient's engine partway. Make sure Sentient is running, then try again.";

function wsUrl(origin: string, token: string | null): string {
  const base = origin.replace(/^http/, 'ws');
  return `${base}/ws${token ? `?token=${encodeURIComponent(token)}` : ''}`;
}

/** A fresh id to recognise a turn's `session` event by (its `client_id` echo). */
export function newClientId(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  return `c${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
}

/** How long a chat message waits for the live connection to open before giving up. */
export const SEND_WAIT_MS = 10_000;

/**
 * Chat turns over the shared socket. Chat events arrive flat, for every turn this window
 * started; a turn is recognised by its `session` event echoing the client id, then by its chat.
 * After `done` the listener keeps following that chat until the next send to it, because steers
 * that arrive too late for a reply become a turn of their own (announced by a `session` event
 * without a client id).
 */
class ChatTurns {
  private followers = new Map<string, () => void>();

  constructor(private readonly socket: LiveSocket) {}

  send(body: Parameters<SentientApi['chatSend']>[0], onEvent: ChatEventListener): Promise<void> {
    const clientId = body.client_id ?? newClientId();
    if (body.session_id) this.unfollow(body.session_id);
    return this.follow(clientId, body.session_id ?? null, onEvent, () =>
      this.socket.sendWhenOpen({ type: 'chat.send', ...body, client_id: clientId }),
    );
  }

  regenerate(body: Parameters<SentientApi['chatRegenerate']>[0], onEvent: ChatEventListener): Promise<void> {
    const clientId = body.client_id ?? newClientId();
    this.unfollow(body.session_id);
    return this.follow(clientId, body.session_id, onEvent, () =>
      this.socket.sendWhenOpen({ type: 'chat.regenerate', ...body, client_id: clientId }),
    );
  }

  async steer(body: Parameters<SentientApi['chatSteer']>[0], onEvent: ChatEventListener): Promise<{ queued: boolean }> {
    const clientId = body.client_id ?? newClientId();
    return new Promise((resolve, reject) => {
      const off = this.socket.add((ev) => {
        if (ev.type === 'connection.lost') {
          off();
          reject(new ApiError(UNREACHABLE, LOST_DETAIL));
          return;
        }
        if (ev.type !== 'steer_ack' || ev.data.client_id !== clientId) return;
        off();
        const queued = ev.data.queued === true;
        // Nothing was running: the engine started a turn with these words.
        if (!queued) {
          this.unfollow(body.session_id);
          void this.follow(clientId, body.session_id, onEvent, async () => {}).catch(() => {});
        }
        resolve({ queued });
      });
      this.socket.sendWhenOpen({ type: 'chat.steer', ...body, client_id: clientId }).catch((e: unknown) => {
        off();
        reject(e);
      });
    });
  }

  private unfollow(sessionId: string) {
    this.followers.get(sessionId)?.();
    this.followers.delete(sessionId);
  }

  /** Forwards the turn's events; resolves at its `done`, then keeps following its chat. */
  private follow(
    clientId: string,
    knownSession: string | null,
    onEvent: ChatEventListener,
    start: () => Promise<void>,
  ): Promise<void> {
    let sessionId: string | null = null;
    let finished = false;
    return new Promise<void>((resolve, reject) => {
      const off = this.socket.add((ev) => {
        if (ev.type === 'connection.lost') {
          if (!finished) {
            finished = true;
            off();
            reject(new ApiError(UNREACHABLE, LOST_DETAIL));
          }
          return;
        }
        if (!isChatEvent(ev)) return;
        const m = ev.data;
        if (sessionId === null) {
          const ours =
            ('client_id' in m && m.client_id === clientId) ||
            // A message for a chat that doesn't exist fails before the turn has a session event.
            (m.type === 'error' && knownSession !== null && m.session_id === knownSession);
          if (!ours) return;
          onEvent(m);
          if (m.type === 'session') {
            sessionId = m.session_id;
            this.unfollow(sessionId);
            this.followers.set(sessionId, off);
            return;
          }
          // A dropped message's error is followed by its done.
          if (m.type === 'error' && m.dropped) return;
          // Otherwise it joined a reply already running (steer_ack), or never became a turn.
          finished = true;
          off();
          resolve();
          return;
        }
        if (m.session_id !== sessionId || m.type === 'steer_ack') return;
        onEvent(m);
        if (m.type === 'done' && !finished) {
          finished = true;
          resolve();
        }
      });
      start().catch((e: unknown) => {
        finished = true;
        off();
        reject(e);
      });
    });
  }
}

/**
 * The `/ws` connection, shared by every subscriber: opened with the first listener, closed a
 * moment after the last one leaves, reconnected with backoff when it drops, pinged every 25 s.
 */
class LiveSocket {
  private listeners = new Set<EventListener>();
  private ws: WebSocket | null = null;
  private attempt = 0;
  private wasOpen = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly url: string,
    private readonly WS: typeof WebSocket,
    private readonly pingMs: number,
  ) {}

  add(listener: EventListener): () => void {
    this.listeners.add(listener);
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    if (!this.ws && !this.reconnectTimer) this.open();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && !this.idleTimer) {
        this.idleTimer = setTimeout(() => {
          this.idleTimer = null;
          if (this.listeners.size === 0) this.shutdown();
        }, IDLE_CLOSE_MS);
      }
    };
  }

  private open(): void {
    let ws: WebSocket;
    try {
      ws = new this.WS(this.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.wasOpen = true;
      this.pingTimer = setInterval(() => this.send({ type: 'ping' }), this.pingMs);
      const waiting = this.outbox;
      this.outbox = [];
      for (const send of waiting) send(ws);
    };
    ws.onmessage = (msg: MessageEvent) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(typeof msg.data === 'string' ? msg.data : String(msg.data));
      } catch {
        return;
      }
      const ev = toEngineEvent(parsed);
      if (ev) this.emit(ev);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPing();
      if (this.listeners.size === 0) return;
      if (this.wasOpen) {
        this.wasOpen = false;
        this.emit({ type: 'connection.lost', data: null, ts: new Date().toISOString() });
      }
      this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    const delay = Math.min(BACKOFF_START_MS * 2 ** this.attempt, BACKOFF_MAX_MS);
    this.attempt += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.listeners.size > 0) this.open();
    }, delay);
  }

  private send(msg: unknown): void {
    if (this.ws && this.ws.readyState === 1 /* OPEN */) this.ws.send(JSON.stringify(msg));
  }

  /**
   * Sends a message once the connection is open (opening it if nobody listens yet). Rejects when
   * it doesn't open within SEND_WAIT_MS.
   */
  sendWhenOpen(msg: unknown): Promise<void> {
    if (this.ws && this.ws.readyState === 1) {
      this.ws.send(JSON.stringify(msg));
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      // Listening keeps the socket open (and opens it) while the message waits.
      const off = this.add(() => {});
      const timer = setTimeout(() => {
        this.outbox = this.outbox.filter((w) => w !== waiting);
        off();
        reject(new ApiError(UNREACHABLE, UNREACHABLE_DETAIL));
      }, SEND_WAIT_MS);
      const waiting = (ws: WebSocket) => {
        clearTimeout(timer);
        ws.send(JSON.stringify(msg));
        off();
        resolve();
      };
      this.outbox.push(waiting);
    });
  }

  private outbox: Array<(ws: WebSocket) => void> = [];

  private emit(ev: EngineEvent): void {
    dispatch(this.listeners, ev);
  }

  private stopPing(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  private shutdown(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.stopPing();
    const ws = this.ws;
    this.ws = null;
    this.wasOpen = false;
    this.attempt = 0;
    if (ws) {
      ws.onclose = null;
      ws.onmessage = null;
      ws.close();
    }
  }
}
