// One error type for both transports: whatever goes wrong talking to the engine becomes an
// `ApiError` whose `detail` is a plain sentence that can be shown to the person as is.

/** Status used when the engine could not be reached at all (no HTTP answer). */
export const UNREACHABLE = 0;

export const UNREACHABLE_DETAIL =
  "Can't reach Sentient's engine. Make sure Sentient is running, then try again.";

export class ApiError extends Error {
  readonly status: number;
  readonly detail: string;

  constructor(status: number, detail: string) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
  }

  /** True when the engine did not answer (not running, wrong address, network down). */
  get unreachable(): boolean {
    return this.status === UNREACHABLE;
  }
}

type ValidationItem = { loc?: unknown; msg?: unknown; type?: unknown };

/**
 * Turns the engine's `detail` into one sentence. It is usually a string; a 422 sends a list of
 * `{loc, msg, type}`, whose messages (each a sentence) are joined with spaces, as the engine does.
 */
export function detailToText(detail: unknown, status: number): string {
  if (typeof detail === 'string' && detail.trim() !== '') return detail;
  if (Array.isArray(detail)) {
    const msgs = detail
      .map((item: ValidationItem | string) =>
        typeof item === 'string' ? item : typeof item?.msg === 'string' ? item.msg : '',
      )
      .filter((m) => m.trim() !== '');
    // Each msg is a sentence of its own.
    if (msgs.length > 0) return msgs.join(' ');
  }
  return fallbackDetail(status);
}

export function fallbackDetail(status: number): string {
  if (status === UNREACHABLE) return UNREACHABLE_DETAIL;
  if (status === 401 || status === 403)
    return "This window isn't signed in to Sentient. Open Sentient's link again to sign in.";
  if (status === 404) return "Sentient couldn't find that.";
  if (status >= 500) return 'Something went wrong inside Sentient. Try again in a moment.';
  return `Sentient couldn't do that (error ${status}). Try again in a moment.`;
}

/** Any thrown value as an ApiError, so callers only ever deal with one kind of error. */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e && typeof e === 'object' && 'status' in e && 'detail' in e) {
    const { status, detail } = e as { status: unknown; detail: unknown };
    const code = typeof status === 'number' ? status : 500;
    return new ApiError(code, detailToText(detail, code));
  }
  if (typeof e === 'string' && e.trim() !== '') return new ApiError(500, e);
  if (e instanceof Error && e.message) return new ApiError(500, e.message);
  return new ApiError(500, fallbackDetail(500));
}
