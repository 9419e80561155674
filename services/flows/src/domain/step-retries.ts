import { Counter, DeadlineExceeded, Unavailable, metricsRegistry } from '@svc/kit';

/**
 * How a step whose call to another service failed transiently is retried (docs/decisions/0070): the run waits at the
 * same step and tries again after an exponential backoff with jitter, for a bounded number of attempts.
 */
export interface StepRetryPolicy {
  /** Attempts at one step in all, the first included; 1: a transient failure fails the run at once. */
  attempts: number;
  /** Backoff before the second attempt; doubles for each later one. */
  backoffMs: number;
  maxBackoffMs: number;
}

/** 20 attempts, 1 s doubling up to 5 min: the waits add up to between about 29 and 59 minutes. */
export const DEFAULT_STEP_RETRY_POLICY: StepRetryPolicy = { attempts: 20, backoffMs: 1_000, maxBackoffMs: 300_000 };

export const stepRetries = new Counter({
  name: 'svc_flow_step_retries_total',
  help: 'Flow steps that failed transiently (UNAVAILABLE, DEADLINE_EXCEEDED), by outcome: retry scheduled, recovered (the step succeeded after retries), exhausted (the run failed after its last attempt).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

/**
 * A downstream call that may succeed if repeated: the service was unreachable or did not answer in time. Everything
 * else (a refusal, a step that cannot run) fails the run at once.
 */
export function isTransient(error: unknown): error is Unavailable | DeadlineExceeded {
  return error instanceof Unavailable || error instanceof DeadlineExceeded;
}

/**
 * The wait after the `failures`-th failed attempt: "equal jitter", half the exponential delay plus a random part of
 * the other half, so replicas retrying runs that failed together spread out.
 */
export function backoffMs(failures: number, policy: StepRetryPolicy, random: () => number = Math.random): number {
  const delay = Math.min(policy.backoffMs * 2 ** (failures - 1), policy.maxBackoffMs);
  return Math.round(delay / 2 + (random() * delay) / 2);
}

/** "42 s", "3 min 12 s": how long a step was retried, for the run's error. */
export function spanOf(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
