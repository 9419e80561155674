import { In, LessThan, type DataSource } from 'typeorm';
import type { Logger } from '@svc/kit';
import { IdempotencyKeyRow, RequestLogRow } from '../entities';

/** Spec 8: history is kept 30 days per connection, auth failures included. */
export const HISTORY_RETENTION_MS = 30 * 24 * 3600 * 1000;
/** Idempotency keys are honoured for 24 hours (docs/decisions/0012): providers retry within hours, not weeks. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

/** Rows deleted per statement: a month of history at a high rate must not become one long lock or event-loop stall. */
export const RETENTION_BATCH = 1000;

/**
 * Deletes the expired rows of one table, oldest first, `batch` at a time (the ids of a batch are read, then deleted:
 * MySQL allows no LIMIT in a subquery of DELETE, SQLite no LIMIT on DELETE), yielding between batches. Rows read as
 * expired stay expired, so a batch that another replica deleted meanwhile just deletes less.
 */
async function deleteExpired(
  dataSource: DataSource,
  target: typeof RequestLogRow | typeof IdempotencyKeyRow,
  cutoff: Date,
  batch: number,
): Promise<number> {
  let removed = 0;
  for (;;) {
    const expired = await dataSource.manager.find(target, {
      select: { id: true },
      where: { createdAt: LessThan(cutoff) },
      order: { createdAt: 'ASC' },
      take: batch,
    });
    if (!expired.length) return removed;
    const result = await dataSource.manager.delete(target, {
      id: In(expired.map((row) => row.id)),
      createdAt: LessThan(cutoff),
    });
    removed += result.affected ?? 0;
    if (expired.length < batch) return removed;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Deletes expired history rows and idempotency keys; returns how many rows went. */
export async function enforceRetention(
  dataSource: DataSource,
  at = new Date(),
  batch = RETENTION_BATCH,
): Promise<number> {
  const history = await deleteExpired(dataSource, RequestLogRow, new Date(at.getTime() - HISTORY_RETENTION_MS), batch);
  const keys = await deleteExpired(
    dataSource,
    IdempotencyKeyRow,
    new Date(at.getTime() - IDEMPOTENCY_WINDOW_MS),
    batch,
  );
  return history + keys;
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
