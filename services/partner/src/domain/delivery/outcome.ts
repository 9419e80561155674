import type { IncomingHttpHeaders } from 'node:http';
import { retryAfterMs, retryDelayMs, THROTTLE_STATUSES } from './schedule';
import type { PostResult } from './http-post';

/** What one attempt's result means for its delivery and webhook (docs/partner-webhooks.md "Status handling"). */
export type Outcome =
  | { kind: 'delivered' }
  /** 410 Gone: the webhook is disabled at once (ENDPOINT_GONE), its pending deliveries held. */
  | { kind: 'gone' }
  /** `webhook-delivery: abort-message`, or the schedule is spent: FAILED. */
  | { kind: 'failed' }
  | { kind: 'retry'; at: Date };

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * 2xx is success and anything else a failure (3xx included: redirects are not followed); 410 disables; 429, 502 and
 * 504 push the next attempt to `Retry-After` when that is later than the schedule's (bounded to 24 h); an answer with
 * `webhook-delivery: abort-message` stops the retries (Svix). `attemptsMade` counts this attempt.
 */
export function outcomeOf(result: PostResult, attemptsMade: number, at: Date, random?: () => number): Outcome {
  if (result.kind === 'answered') {
    const { statusCode, headers } = result;
    if (statusCode >= 200 && statusCode < 300) return { kind: 'delivered' };
    if (statusCode === 410) return { kind: 'gone' };
    if (header(headers, 'webhook-delivery')?.trim().toLowerCase() === 'abort-message') return { kind: 'failed' };
  }
  const delay = retryDelayMs(attemptsMade, random);
  if (delay === undefined) return { kind: 'failed' };
  const throttled =
    result.kind === 'answered' && THROTTLE_STATUSES.includes(result.statusCode)
      ? retryAfterMs(header(result.headers, 'retry-after'), at)
      : undefined;
  return { kind: 'retry', at: new Date(at.getTime() + Math.max(delay, throttled ?? 0)) };
}
