import { In, LessThan, type DataSource } from 'typeorm';
import { firstIdAt, PassLoop, type Logger } from '@svc/kit';
import { UsageEventRow } from '../../entities';
import { USAGE_CONSUMER } from './recorder';

/** Marks deleted per statement: a month of marks must not become one long lock. */
export const USAGE_MARKS_PRUNE_BATCH = 1000;
/** How often a replica prunes (every replica may: deleting a deleted mark deletes nothing). */
export const USAGE_MARKS_PRUNE_INTERVAL_MS = 3_600_000;

/**
 * Deletes the processed-event marks of events both made and counted before `cutoff` (decision 0270: no redelivery
 * comes that late), `batch` at a time. The event id bound (ids begin with their second) keeps each batch a range of
 * the primary key; the counted time keeps the mark of an event relayed late.
 */
export async function pruneUsageMarks(
  dataSource: DataSource,
  cutoff: Date,
  { consumer = USAGE_CONSUMER, batch = USAGE_MARKS_PRUNE_BATCH } = {},
): Promise<number> {
  const expired = { consumer, eventId: LessThan(firstIdAt(cutoff)), processedAt: LessThan(cutoff) };
  let removed = 0;
  for (;;) {
    const rows = await dataSource.manager.find(UsageEventRow, {
      select: { eventId: true },
      where: expired,
      order: { eventId: 'ASC' },
      take: batch,
    });
    if (!rows.length) return removed;
    const result = await dataSource.manager.delete(UsageEventRow, {
      consumer,
      eventId: In(rows.map((row) => row.eventId)),
    });
    removed += result.affected ?? 0;
    if (rows.length < batch) return removed;
  }
}

/** Prunes the marks older than `retentionMs` at start and every hour. */
export function usageMarksRetention(
  dataSource: DataSource,
  retentionMs: number,
  logger: Logger,
  clock: () => Date = () => new Date(),
): PassLoop {
  return new PassLoop(
    async () => {
      const removed = await pruneUsageMarks(dataSource, new Date(clock().getTime() - retentionMs));
      if (removed) logger.info({ removed }, 'usage processed-event marks pruned');
    },
    { intervalMs: USAGE_MARKS_PRUNE_INTERVAL_MS, clock, logger, what: 'usage marks retention' },
  );
}
