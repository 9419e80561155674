import type { Logger } from 'pino';
import { stopTracing } from './tracing/sdk';

/**
 * Stops the app once on SIGTERM (Kubernetes) or SIGINT (Ctrl-C), exports the spans still buffered, and exits; a second
 * signal exits at once.
 */
export function stopOnSignals(stop: () => Promise<void>, logger: Logger): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop()
      .then(stopTracing)
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** Anything an app stops: a subscription, a pass loop, an org erasure participant. */
export interface Stoppable {
  stop(): Promise<unknown> | void;
}

/**
 * Stops `parts` at once (the absent ones skipped) and returns when every one has stopped, failed or not, so the next
 * stage of a shutdown never starts while a part of this one still runs; then throws the first failure. An app stops
 * its Kafka consumers with it: each waits for its fetch under way before it leaves its group (~0.35 s on an idle
 * topic), so one after another they add up (docs/decisions/0280).
 */
export async function stopTogether(parts: readonly (Stoppable | undefined)[]): Promise<void> {
  const results = await Promise.allSettled(parts.map(async (part) => part?.stop()));
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}
