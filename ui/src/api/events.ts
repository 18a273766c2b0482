// Turns whatever arrives on a live channel into the window's one event shape `{type, data, ts}`.
import type { ChatEnvelope, DomainEnvelope, EngineEvent } from './types';

/** Tauri event name the shell forwards the engine's bus on. */
export const TAURI_EVENT = 'sentient://event';

/**
 * Domain events (`stop.updated`, ...) already are `{type, data, ts}`. Everything else (the
 * socket's `hello`, chat events with their flat shape) keeps the whole message as `data`.
 * Returns null for things that are not events (no type, or the socket's `pong`).
 *
 * This is where JSON from the engine becomes an EngineEvent: what arrives is taken to be what the
 * engine sends (the generated types); the cache's handlers still check the payloads they read.
 */
export function toEngineEvent(msg: unknown): EngineEvent | null {
  if (!msg || typeof msg !== 'object') return null;
  const m = msg as Record<string, unknown>;
  if (typeof m.type !== 'string' || m.type === '' || m.type === 'pong') return null;
  const ts = typeof m.ts === 'string' ? m.ts : new Date().toISOString();
  if (m.type.includes('.') && 'data' in m) return { type: m.type, data: m.data, ts } as EngineEvent;
  return { type: m.type, data: m, ts } as EngineEvent;
}

/** A domain event of the bus (dotted `type`), not one the window makes about the connection. */
export function isDomainEvent(ev: EngineEvent): ev is DomainEnvelope {
  return ev.type.includes('.') && ev.type !== 'connection.lost';
}

/** A chat event (the HTTP transport's socket): no dot in its `type`, and not the `hello`. */
export function isChatEvent(ev: EngineEvent): ev is ChatEnvelope {
  return !ev.type.includes('.') && ev.type !== 'hello';
}

/**
 * The `default` of a switch that covers every variant of a generated union: `tsc` fails where it
 * is called if a case is missing, since only `never` fits. At run time nothing is thrown: an event
 * the window doesn't know (from a newer engine) is ignored, and `false` says it wasn't handled.
 */
export function assertNever(value: never): false {
  void value;
  return false;
}

/** Calls every listener; one listener that throws never keeps the others from hearing it. */
export function dispatch(listeners: Iterable<(ev: EngineEvent) => void>, ev: EngineEvent): void {
  for (const listener of [...listeners]) {
    try {
      listener(ev);
    } catch (err) {
      console.error('A live-event listener failed', err);
    }
  }
}
