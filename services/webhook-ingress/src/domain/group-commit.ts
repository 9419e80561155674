import { In, LessThan, type DataSource, type EntityManager } from 'typeorm';
import { enqueueEvents, entitySql, insertRows, isDuplicateKeyError, now, type Logger, type NewEvent } from '@svc/kit';
import { IdempotencyKeyRow, RequestLogRow } from '../entities';
import { IDEMPOTENCY_WINDOW_MS } from './retention';

/** Keys stored before this instant are past the window (decision 0012): a request re-using one is a new request. */
export function idempotencyCutoff(at: Date): Date {
  return new Date(at.getTime() - IDEMPOTENCY_WINDOW_MS);
}

/** What one request commits: its history row, and for an accepted or captured one its idempotency record and event. */
export interface RequestCommit {
  log: RequestLogRow;
  idempotency?: IdempotencyKeyRow;
  event?: NewEvent;
}

/** `duplicate`: another request committed the same idempotency key first; nothing of this one was written. */
export type CommitResult = 'committed' | 'duplicate';

interface Waiting extends RequestCommit {
  resolve(result: CommitResult): void;
  reject(error: unknown): void;
}

/**
 * Group commit of the public endpoint's writes (docs/decisions/0015). Every request waits until its rows are
 * committed (an accepted request is answered 202 only then), but concurrent requests share one transaction: whatever
 * arrived while the previous transaction ran — or, on SQLite where a transaction never yields to I/O, in the same
 * turn of the event loop — is written by the next one with multi-row inserts, up to `maxBatch` requests. Nothing
 * waits on a timer: a lone request is committed at once.
 *
 * Idempotency keys are claimed inside the transaction: a key already stored, or claimed by an earlier request of the
 * same batch, makes that request `duplicate` (its caller replays the winner) without failing the others; a key stored
 * longer ago than the window is not a claim, its row gives way to the new one. If the batch
 * fails anyway (e.g. another replica committed the same key in between), each request is retried in a transaction of
 * its own, so one request's failure is never another's.
 */
export class GroupCommit {
  private queue: Waiting[] = [];
  private draining: Promise<void> | undefined;
  private scheduled = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly maxBatch: number,
    /** Called after a commit that enqueued events (nudges the outbox relay). */
    private readonly onEvents: () => void,
    private readonly logger: Logger,
  ) {}

  commit(request: RequestCommit): Promise<CommitResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...request, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once everything queued so far is committed (shutdown). */
  async flush(): Promise<void> {
    while (this.queue.length || this.draining) await (this.draining ?? this.drain());
  }

  private schedule(): void {
    if (this.draining || this.scheduled) return;
    this.scheduled = true;
    // Let every request handled in this turn of the event loop join the batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private drain(): Promise<void> {
    this.draining ??= (async () => {
      try {
        while (this.queue.length) await this.write(this.queue.splice(0, this.maxBatch));
      } finally {
        this.draining = undefined;
      }
    })();
    return this.draining;
  }

  private async write(batch: Waiting[]): Promise<void> {
    let duplicates: Set<Waiting>;
    try {
      duplicates = await this.transaction(batch);
    } catch (error) {
      if (batch.length > 1) {
        this.logger.warn({ err: error, requests: batch.length }, 'group commit failed; committing one by one');
        for (const request of batch) await this.write([request]);
        return;
      }
      const [only] = batch as [Waiting];
      if (only.idempotency && isDuplicateKeyError(error)) only.resolve('duplicate');
      else only.reject(error);
      return;
    }
    for (const request of batch) request.resolve(duplicates.has(request) ? 'duplicate' : 'committed');
    if (batch.some((request) => request.event && !duplicates.has(request))) this.onEvents();
  }

  private async transaction(batch: Waiting[]): Promise<Set<Waiting>> {
    return this.dataSource.transaction(async (manager) => {
      const duplicates = new Set<Waiting>();
      const keyed = batch.filter((request) => request.idempotency);
      if (keyed.length) {
        const claimed = await liveClaims(
          manager,
          keyed.map((request) => request.idempotency?.id ?? ''),
        );
        for (const request of keyed) {
          const id = request.idempotency?.id ?? '';
          if (claimed.has(id)) duplicates.add(request);
          else claimed.add(id);
        }
      }
      const written = duplicates.size ? batch.filter((request) => !duplicates.has(request)) : batch;
      await insertRows(
        manager,
        IdempotencyKeyRow,
        written.flatMap((request) => (request.idempotency ? [request.idempotency] : [])),
      );
      await insertRows(
        manager,
        RequestLogRow,
        written.map((request) => request.log),
      );
      const events = written.flatMap((request) => (request.event ? [request.event] : []));
      if (events.length) await enqueueEvents(manager, events);
      return duplicates;
    });
  }
}

/**
 * The ids among `ids` held by a key still inside the window. Expired rows of those ids are deleted here, so the new
 * request can insert its own (the hourly retention job would delete them later anyway). The delete re-checks the age:
 * if another replica replaced the row meanwhile, the fresh row stays and this request's insert fails as a duplicate.
 */
async function liveClaims(manager: EntityManager, ids: string[]): Promise<Set<string>> {
  const cutoff = idempotencyCutoff(now());
  const unique = [...new Set(ids)];
  const keys = entitySql(manager.connection, IdempotencyKeyRow);
  const stored = await keys.selectColumns(
    manager,
    ['id', 'createdAt'],
    `WHERE ${keys.column('id')} IN (${unique.map(() => '?').join(', ')})`,
    unique,
  );
  const expired = stored.filter((row) => row.createdAt < cutoff).map((row) => row.id);
  if (expired.length) await manager.delete(IdempotencyKeyRow, { id: In(expired), createdAt: LessThan(cutoff) });
  return new Set(stored.filter((row) => row.createdAt >= cutoff).map((row) => row.id));
}
