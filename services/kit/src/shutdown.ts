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
