/**
 * How the sender retries what a platform called transient (docs/decisions/0141): exponential backoff with full
 * jitter (a random wait between 0 and the capped exponential delay, so channels that failed together spread out),
 * never sooner than the platform asked (`retryAfterMs`), for at most `attempts` attempts and `maxAgeMs` since the
 * message was queued; then the message FAILS as EXHAUSTED with the last error.
 */
export interface DeliveryRetryPolicy {
  attempts: number;
  backoffMs: number;
  maxBackoffMs: number;
  maxAgeMs: number;
}

/** 10 attempts, 1 s doubling up to 5 minutes, within 1 hour: a platform outage longer than that fails the message. */
export const DEFAULT_DELIVERY_RETRY: DeliveryRetryPolicy = {
  attempts: 10,
  backoffMs: 1_000,
  maxBackoffMs: 300_000,
  maxAgeMs: 3_600_000,
};

/** The wait after the `failures`-th failed attempt: full jitter, at least what the platform asked. */
export function deliveryBackoffMs(
  failures: number,
  policy: DeliveryRetryPolicy,
  retryAfterMs = 0,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.backoffMs * 2 ** Math.max(0, failures - 1), policy.maxBackoffMs);
  return Math.max(retryAfterMs, Math.round(random() * ceiling));
}

/** Whether another attempt may follow the `attempts`-th, queued at `queuedAt`, if it would start at `nextAt`. */
export function mayRetry(attempts: number, queuedAt: Date, nextAt: Date, policy: DeliveryRetryPolicy): boolean {
  return attempts < policy.attempts && nextAt.getTime() - queuedAt.getTime() <= policy.maxAgeMs;
}
