import { LessThan, type DataSource } from 'typeorm';
import type { Logger } from '@svc/kit';
import { IdempotencyKeyRow, RequestLogRow } from '../entities';

/** Spec 8: history is kept 30 days per connection, auth failures included. */
export const HISTORY_RETENTION_MS = 30 * 24 * 3600 * 1000;
/** Idempotency keys are honoured for 24 hours (docs/decisions/0012): providers retry within hours, not weeks. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

/** Deletes expired history rows and idempotency keys; returns how many rows went. */
export async function enforceRetention(dataSource: DataSource, at = new Date()): Promise<number> {
  const history = await dataSource.manager.delete(RequestLogRow, {
    createdAt: LessThan(new Date(at.getTime() - HISTORY_RETENTION_MS)),
  });
  const keys = await dataSource.manager.delete(IdempotencyKeyRow, {
    createdAt: LessThan(new Date(at.getTime() - IDEMPOTENCY_WINDOW_MS)),
  });
  return (history.affected ?? 0) + (keys.affected ?? 0);
}

/** Runs the retention job on an interval (every replica may run it: deletes are idempotent). */
export function scheduleRetention(dataSource: DataSource, intervalMs: number, logger: Logger): () => void {
  const run = () =>
    enforceRetention(dataSource).then(
      (removed) => removed && logger.info({ removed }, 'inbound history retention applied'),
      (error: unknown) => logger.warn({ err: error }, 'inbound history retention failed; will retry'),
    );
  const timer = setInterval(run, intervalMs);
  timer.unref();
  void run();
  return () => clearInterval(timer);
}
