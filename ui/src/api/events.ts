// Turns whatever arrives on a live channel into the window's one event shape `{type, data, ts}`.
import type { EngineEvent } from './types';

/** Tauri event name the shell forwards the engine's bus on. */
export const TAURI_EVENT = 'sentient://event';

/**
 * Domain events (`stop.updated`, ...) already are `{type, data, ts}`. Everything else (the
 * socket's `hello`, chat events with their flat shape) keeps the whole message as `data`.
 * Returns null for things that are not events (no type, or the socket's `pong`).
 */
export function toEngineEvent(msg: unknown): EngineEvent | null {
  if (!msg || typeof msg !== 'object') return null;
  const m = msg as Record<string, unknown>;
  if (typeof m.type !== 'string' || m.type === '' || m.type === 'pong') return null;
  const ts = typeof m.ts === 'string' ? m.ts : new Date().toISOString();
  if (m.type.includes('.') && 'data' in m) return { type: m.type, data: m.data, ts };
  return { type: m.type, data: m, ts };
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
