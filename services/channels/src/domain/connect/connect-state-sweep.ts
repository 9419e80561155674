import { LessThan, type DataSource } from 'typeorm';
import { detached, now, type Logger } from '@svc/kit';
import { ConnectStateRow } from '../../entities';

export interface ConnectStateSweepOptions {
  /** How often a replica sweeps. */
  intervalMs: number;
  /** Rows deleted per statement, so one sweep never holds a long lock. */
  batchSize?: number;
  /** Read on each sweep (tests move it). */
  clock?: () => Date;
}

/**
 * Deletes the hosted connect's state rows (decision 0122) once they expired: an expired state's JWT is refused before
 * its row is read, so the row answers nothing any more. Replica-safe without coordination: each replica deletes by id
 * the rows it found expired, in batches; rows another replica deleted first are simply not affected.
 */
export class ConnectStateSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly logger: Logger,
    private readonly options: ConnectStateSweepOptions,
  ) {}

  /** One sweep: every row expired before now, batch by batch; answers how many this replica deleted. */
  async sweep(): Promise<number> {
    const rows = this.dataSource.getRepository(ConnectStateRow);
    const batchSize = this.options.batchSize ?? 500;
    const expiredBefore = this.options.clock?.() ?? now();
    let deleted = 0;
    for (;;) {
      const batch = await rows.find({
        select: { id: true },
        where: { expiresAt: LessThan(expiredBefore) },
        order: { expiresAt: 'ASC' },
        take: batchSize,
      });
      if (batch.length === 0) return deleted;
      const result = await rows.delete(batch.map((row) => row.id));
      deleted += result.affected ?? 0;
      if (batch.length < batchSize) return deleted;
    }
  }

  start(): void {
    this.timer = detached(() =>
      setInterval(() => {
        if (this.running) return;
        this.running = this.sweep()
          .then((deleted) => {
            if (deleted) this.logger.debug({ deleted }, 'expired connect states deleted');
          })
          .catch((error: unknown) => this.logger.warn({ err: error }, 'connect state sweep failed'))
          .finally(() => (this.running = undefined));
      }, this.options.intervalMs),
    );
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
