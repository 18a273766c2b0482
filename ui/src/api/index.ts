// The window's only door to the engine. Components use their area's hooks
// (`features/<area>/queries.ts`, or `useApi()`), never `invoke` or `fetch`.
import { createHttpApi } from './http';
import { createTauriApi } from './tauri';
import type { SentientApi } from './sentientApi';

export { ApiError, toApiError, UNREACHABLE } from './errors';
export type * from './types';
export type * from './sentientApi';
export { ROLE_NAMES } from './types';
export { newClientId } from './http';
export { assertNever } from './events';

/** True inside the desktop app (Tauri puts its internals on window before any script runs). */
export function isTauri(w: object = window): boolean {
  return '__TAURI_INTERNALS__' in w;
}

/** Picks the transport once, at start. */
export function createApi(): SentientApi {
  return isTauri() ? createTauriApi() : createHttpApi();
}
