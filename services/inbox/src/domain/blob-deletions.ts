import { In, type DataSource, type EntityManager } from 'typeorm';
import { insertRows, newId, now, type Logger } from '@svc/kit';
import { BlobDeletionRow } from '../entities';
import type { BlobStore } from '../storage/blob-store';

/** Pending deletions read per sweep pass. */
const SWEEP_BATCH = 100;

/**
 * Durable deletion of media bytes (docs/decisions/0166): the transaction that removes media rows records their blob
 * keys in `blob_deletions`; once it committed, `discard` deletes the bytes and then the records. A process killed in
 * between, or a storage failure, leaves the records, and `sweep` (at start and every minute) finishes the work. A blob
 * is deleted at least once, never before its row is gone (an uncommitted record is invisible to the sweep).
 */
export class BlobDeletions {
  constructor(
    private readonly dataSource: DataSource,
    private readonly blobs: BlobStore,
    private readonly logger: Logger,
  ) {}

  /** Inside the transaction that removes the media rows. */
  async record(manager: EntityManager, keys: string[]): Promise<void> {
    if (!keys.length) return;
    const at = now();
    await insertRows(
      manager,
      BlobDeletionRow,
      keys.map((blobKey) => Object.assign(new BlobDeletionRow(), { id: newId(at), blobKey, createdAt: at })),
    );
  }

  /** After the commit: the bytes of `keys`, then their records; what fails stays recorded for the sweep. */
  async discard(keys: string[]): Promise<void> {
    const deleted = await this.deleteBlobs(keys);
    if (deleted.length) await this.dataSource.manager.delete(BlobDeletionRow, { blobKey: In(deleted) });
  }

  /** Every recorded deletion, oldest first; the number of blobs deleted. Safe to run on several replicas at once. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const pending = await this.dataSource.manager.find(BlobDeletionRow, {
        order: { createdAt: 'ASC', id: 'ASC' },
        take: SWEEP_BATCH,
      });
      const deleted = new Set(await this.deleteBlobs(pending.map((row) => row.blobKey)));
      const done = pending.filter((row) => deleted.has(row.blobKey)).map((row) => row.id);
      if (done.length) await this.dataSource.manager.delete(BlobDeletionRow, { id: In(done) });
      total += done.length;
      // A short batch is the end; a batch that made no progress (storage failing) waits for the next sweep.
      if (pending.length < SWEEP_BATCH || !done.length) return total;
    }
  }

  /** The keys whose bytes are gone now (deleting a missing blob succeeds); failures are logged. */
  private async deleteBlobs(keys: string[]): Promise<string[]> {
    const results = await Promise.all(
      keys.map((key) =>
        this.blobs.delete(key).then(
          () => key,
          (error: unknown) => {
            this.logger.warn({ err: error, key }, 'media blob not deleted yet; the sweep retries');
            return undefined;
          },
        ),
      ),
    );
    return results.filter((key): key is string => key !== undefined);
  }
}
