import type { PlatformError } from '../adapter';

/** The `error` object of a Graph API error answer. */
export interface GraphErrorBody {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  error_user_msg?: string;
  error_data?: { details?: string } | string;
  fbtrace_id?: string;
}

/**
 * Graph error codes worth retrying with backoff (platforms.md 1.2, Meta's error tables): throughput and pair rate
 * limits, a number's throughput upgrade, app / account / page rate limits, "temporarily unavailable".
 */
export const TRANSIENT_GRAPH_CODES: ReadonlySet<number> = new Set([
  1, // API unknown
  2, // API service (temporarily unavailable)
  4, // application request limit
  17, // user request limit
  32, // page request limit
  613, // calls to this API exceeded the rate limit (Messenger)
  80007, // WhatsApp Business Account rate limit
  130429, // Cloud API throughput reached
  131056, // pair rate limit (same recipient too often)
  131057, // account in maintenance (throughput upgrade)
]);

/** The access token is expired or revoked: nothing will succeed until the channel is authorised again. */
export const REAUTHORIZE_GRAPH_CODES: ReadonlySet<number> = new Set([190]);

/** WhatsApp: re-engagement message, more than 24 hours since the user last wrote. */
export const WINDOW_CLOSED_CODE = 131047;
/** Messenger: `code 10` with this subcode is a send outside the allowed window. */
export const MESSENGER_WINDOW_SUBCODE = 2018278;

/**
 * Classifies a failed Graph call by the platform's own rules: branch on `code` (and Messenger's window subcode),
 * never on the words; HTTP 429 and 5xx without a known code are transient; everything else is permanent.
 */
export function classifyGraphError(httpStatus: number, error: GraphErrorBody | undefined): PlatformError {
  const code = error?.code;
  const details = typeof error?.error_data === 'object' ? error.error_data.details : undefined;
  const message = [error?.message, details].filter(Boolean).join(': ') || `HTTP ${httpStatus}`;
  if (code === undefined) {
    const transient = httpStatus === 429 || httpStatus >= 500;
    return { transient, code: `http_${httpStatus}`, message };
  }
  const result: PlatformError = { transient: TRANSIENT_GRAPH_CODES.has(code), code: String(code), message };
  if (REAUTHORIZE_GRAPH_CODES.has(code)) result.reauthorize = true;
  if (code === WINDOW_CLOSED_CODE || (code === 10 && error?.error_subcode === MESSENGER_WINDOW_SUBCODE)) {
    result.windowClosed = true;
  }
  // An unknown code on a 5xx answer is still the platform failing, not our request.
  if (!result.transient && !result.reauthorize && !result.windowClosed && httpStatus >= 500) result.transient = true;
  return result;
}

/** A call that got no answer: a timeout or a network failure is transient (the send may or may not have happened). */
export function classifyNetworkFailure(error: unknown): PlatformError {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return { transient: true, code: 'timeout', message: 'the platform did not answer in time' };
  }
  return {
    transient: true,
    code: 'network',
    message: `the platform could not be reached: ${(error as Error).message}`,
  };
}
