export interface BackoffOptions {
  /** The first delay (the server's `retry:` when it sent one), in ms. */
  baseMs: number;
  /** The longest delay, in ms. */
  maxMs: number;
  /** A number in [0, 1); `Math.random` by default. */
  random?: () => number;
}

/**
 * The delay before reconnect attempt `attempt` (0 = the first after a drop): exponential from `baseMs`, capped at
 * `maxMs`, with "equal jitter" (half fixed, half random) so that many widgets dropped by one redeploy do not all come
 * back in the same instant, while none retries sooner than half its step.
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const random = options.random ?? Math.random;
  const step = Math.min(options.maxMs, options.baseMs * Math.pow(2, Math.max(0, Math.min(attempt, 30))));
  return Math.round(step / 2 + random() * (step / 2));
}
