import { spendFromBucket, type BucketState } from '@svc/kit';

/**
 * Each channel's send rate (its adapter's `rateLimit`), a token bucket per channel in this replica's memory: with N
 * replicas sending for one channel the platform may see up to N times the rate, which the adapters' numbers leave
 * room for (each README: well under the platform's limit), and a 429 the platform answers anyway is retried after its
 * `retryAfterMs`.
 */
export class ChannelRateLimits {
  private readonly buckets = new Map<string, BucketState>();

  /** 0 when a send may go now (a token is spent); otherwise how many milliseconds until one may. */
  take(channelId: string, rate: { perSecond: number; burst: number }, at = Date.now()): number {
    const spent = spendFromBucket(this.buckets.get(channelId), 1, at, {
      capacity: rate.burst,
      refillPerSecond: rate.perSecond,
    });
    this.buckets.set(channelId, spent.bucket);
    if (spent.ok) return 0;
    return Math.max(1, Math.ceil(((1 - spent.bucket.tokens) / rate.perSecond) * 1000));
  }
}
