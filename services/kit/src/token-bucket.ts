/** How a token bucket fills: it holds at most `capacity` tokens and gains `refillPerSecond` a second. */
export interface BucketRate {
  capacity: number;
  refillPerSecond: number;
}

/** A bucket's tokens as of `at` (milliseconds); a holder without a bucket has a full one. */
export interface BucketState {
  tokens: number;
  at: number;
}

export type BucketSpend =
  { ok: true; bucket: BucketState } | { ok: false; bucket: BucketState; retryAfterSeconds: number };

/**
 * Spends `cost` from a bucket when it holds that much at `now`; otherwise spends nothing and says how many whole
 * seconds (at least 1) until it will. The returned bucket is the state to keep either way. Pure, so the same bucket
 * works in memory (the gateway's cost budget) and in a database row (identity's login throttle).
 */
export function spendFromBucket(
  previous: BucketState | undefined,
  cost: number,
  now: number,
  rate: BucketRate,
): BucketSpend {
  const tokens = previous
    ? Math.min(rate.capacity, previous.tokens + (Math.max(0, now - previous.at) / 1000) * rate.refillPerSecond)
    : rate.capacity;
  if (tokens < cost)
    return {
      ok: false,
      bucket: { tokens, at: now },
      retryAfterSeconds: Math.max(1, Math.ceil((cost - tokens) / rate.refillPerSecond)),
    };
  return { ok: true, bucket: { tokens: tokens - cost, at: now } };
}
