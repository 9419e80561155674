/**
 * The retry schedule of a delivery (docs/partner-webhooks.md "Schedule", docs/decisions/0242): Standard Webhooks'
 * recommended list, whose first eight steps are Svix's (docs.svix.com/retries): the delay before attempt n+1 is
 * `RETRY_DELAYS_MS[n]`, so attempt 1 is immediate and attempt 10 comes ≈ 75.5 h after the event. After the last, the
 * delivery is FAILED.
 */
export const RETRY_DELAYS_MS = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
] as const;

/** Attempts of the schedule; a replay adds one outside it. */
export const SCHEDULED_ATTEMPTS = RETRY_DELAYS_MS.length;

/** Each delay is moved by up to ±JITTER of itself, so endpoints failing together are not retried in lockstep. */
export const JITTER = 0.1;

/** The longest a `Retry-After` can push the next attempt (the schedule's own longest step). */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * The delay before the attempt after `attemptsMade` failed ones, or undefined when the schedule is spent. `random` in
 * [0, 1) picks the jitter (tests pass a constant).
 */
export function retryDelayMs(attemptsMade: number, random: () => number = Math.random): number | undefined {
  const base = RETRY_DELAYS_MS[attemptsMade];
  if (base === undefined) return undefined;
  return Math.round(base * (1 + JITTER * (2 * random() - 1)));
}

/**
 * A `Retry-After` header (seconds, or an HTTP date) as milliseconds from `at`, bounded to [0, MAX_RETRY_AFTER_MS];
 * undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | undefined, at: Date): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - at.getTime();
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/** Statuses that ask the sender to slow down (Standard Webhooks): their `Retry-After` is honoured. */
export const THROTTLE_STATUSES: readonly number[] = [429, 502, 504];

/**
 * The auto-disable rule (docs/decisions/0243, after Svix): a webhook whose attempts have all failed since
 * `failing_since` is disabled (FAILING) by the first failed attempt at least this long after it.
 */
export const FAILING_DISABLE_AFTER_MS = 5 * 24 * 3_600_000;
