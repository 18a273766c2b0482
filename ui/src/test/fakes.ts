// Test doubles shared by the unit tests: a WebSocket the test drives by hand, and a fake engine
// behind the SentientApi interface.
import { vi } from 'vitest';
import type { Bootstrap, Config, EngineEvent, OnboardingRequest, SentientApi, StopState } from '../api';

export class FakeWebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static instances: FakeWebSocket[] = [];

  readonly url: string;
  readyState = FakeWebSocket.CONNECTING;
  sent: string[] = [];
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  closedByClient = false;

  constructor(url: string) {
    this.url = url;
    FakeWebSocket.instances.push(this);
  }

  static latest(): FakeWebSocket {
    const ws = FakeWebSocket.instances.at(-1);
    if (!ws) throw new Error('no WebSocket was opened');
    return ws;
  }

  send(data: string) {
    if (this.readyState !== FakeWebSocket.OPEN) throw new Error('send on a socket that is not open');
    this.sent.push(data);
  }

  close() {
    this.closedByClient = true;
    this.readyState = FakeWebSocket.CLOSED;
    this.onclose?.(new Event('close') as CloseEvent);
  }

  // --- driven by the test (the "server") ---
  serverOpen() {
    this.readyState = FakeWebSocket.OPEN;
    this.onopen?.(new Event('open'));
  }

  serverSend(msg: unknown) {
    const data = typeof msg === 'string' ? msg : JSON.stringify(msg);
    this.onmessage?.(new MessageEvent('message', { data }));
  }

  serverDrop() {
    this.readyState = FakeWebSocket.CLOSED;
    this.onclose?.(new Event('close') as CloseEvent);
  }
}

export const RUNNING: StopState = { stopped: false, stopped_at: null, source: null };

export function makeBootstrap(overrides: { stop?: StopState; onboarding_complete?: boolean } = {}): Bootstrap {
  return {
    version: '0.1.0',
    home: '/home/me/.sentient',
    assistant: {
      name: 'Sentient',
      user_name: 'Ada',
      timezone: 'Europe/Lisbon',
      location: 'Lisbon',
      language: 'en',
      onboarding_complete: overrides.onboarding_complete ?? true,
    },
    models: { primary: 'ollama_chat/qwen3:8b', fast: null, planner: null, executor: null, embedding: null, vision: null, voice: null },
    memory_enabled: true,
    unread_notifications: 0,
    ui: { theme: 'dark', accent: 'sentient', launch_at_login: false, minimize_to_tray: true },
    features: { voice: false, proactivity: false },
    stop: overrides.stop ?? RUNNING,
  };
}

/** A fake engine: every method is a vi.fn, and `emit` plays an event to subscribers. */
export function fakeApi(initial: Bootstrap) {
  const listeners = new Set<(ev: EngineEvent) => void>();
  let bootstrap = initial;
  let stop = initial.stop;
  const api = {
    transport: 'http' as const,
    health: vi.fn(async () => ({ ok: true, version: bootstrap.version, name: 'Sentient' })),
    bootstrap: vi.fn(async () => ({ ...bootstrap, stop })),
    onboarding: vi.fn(async (body: OnboardingRequest) => {
      bootstrap = {
        ...bootstrap,
        assistant: {
          ...bootstrap.assistant,
          user_name: body.user_name,
          name: body.assistant_name || 'Sentient',
          timezone: body.timezone ?? 'auto',
          location: body.location ?? '',
          onboarding_complete: true,
        },
      };
      return { ok: true };
    }),
    getStop: vi.fn(async () => stop),
    stopAll: vi.fn(async (source?: string) => {
      stop = { stopped: true, stopped_at: '2030-05-04T10:00:00Z', source: source ?? 'desktop' };
      return { ...stop, cancelled: 0 };
    }),
    resume: vi.fn(async (source?: string) => {
      stop = { stopped: false, stopped_at: null, source: source ?? 'desktop' };
      return stop;
    }),
    // The pages under test only read the sections they show; a full settings object is not needed.
    setTitle: vi.fn(),
    getConfig: vi.fn(async () => ({}) as Config),
    patchConfig: vi.fn(async () => ({ saved: true, config: {} as Config })),
    subscribe: vi.fn((listener: (ev: EngineEvent) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    }),
  } satisfies SentientApi;
  return {
    api,
    listeners,
    emit(type: string, data: unknown) {
      for (const l of [...listeners]) l({ type, data, ts: new Date().toISOString() });
    },
    setStop(s: StopState) {
      stop = s;
    },
  };
}

export const ONBOARDING_BODY: OnboardingRequest = {
  user_name: 'Ada',
  assistant_name: 'Sentient',
  timezone: 'Europe/Lisbon',
  location: 'Lisbon',
  professional_context: null,
  personal_context: null,
  persona: null,
  daily_brief: null,
};
