/** A refused widget-api call: its HTTP status and the `{ error: { code, message, field?, reason? } }` body. */
export class WidgetApiError extends Error {
  override readonly name = 'WidgetApiError';

  constructor(
    /** HTTP status; 0 when the request never got an answer (network down, CORS refused, aborted). */
    readonly status: number,
    /** `BAD_USER_INPUT`, `UNAUTHENTICATED`, `NOT_FOUND`, `RATE_LIMITED`, … or `NETWORK_ERROR` for status 0. */
    readonly code: string,
    message: string,
    readonly details: { field?: string; reason?: string; retryAfterSeconds?: number } = {},
  ) {
    super(message);
  }

  /** Whether the same request may succeed later unchanged (network, 429, 5xx). */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}
