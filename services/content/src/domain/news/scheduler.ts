import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { PassLoop, enqueueEvents, entitySql, now, type EntitySql, type Logger, type OutboxRelay } from '@svc/kit';
import { NewsPostState_Status as NewsPostStatus } from '@svc/proto/content/v1/content';
import { NewsPostRow } from '../../entities';
import { contentEvent } from '../events';
import { Lease } from './lease';
import { moved } from './states';

const BATCH = 100;
const LEASE_NAME = 'news-scheduler';

export interface NewsSchedulerOptions {
  /** How often a replica tries the lease and, holding it, publishes what is due. */
  intervalMs: number;
  /** How long the lease lasts unrenewed: a dead holder's passes to another replica after this. */
  leaseMs: number;
  /** The time the scheduler reads as now (tests move it). */
  clock?: () => Date;
}

/**
 * Publishes SCHEDULED news posts at their time, each exactly once across replicas and restarts (docs/decisions/0191).
 * One replica at a time sweeps: the holder of the `news-scheduler` lease (renewed on each pass, released on a clean
 * stop, expired after a crash). Each due post is published by a conditional update (still SCHEDULED, for the time
 * read) with its `news_post.published` event in the same transaction, so even two sweepers (a lease that expired
 * mid-pass) publish a post once. Between passes the holder sleeps until the next post is due when that is sooner than
 * the interval; a replica that schedules a post wakes itself for it.
 */
export class NewsScheduler {
  /** This replica's name in the lease. */
  readonly holder = `scheduler-${randomBytes(6).toString('hex')}`;
  private readonly posts: EntitySql<NewsPostRow>;
  private readonly lease: Lease;
  private readonly clock: () => Date;
  private readonly loop: PassLoop;

  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly logger: Logger,
    private readonly options: NewsSchedulerOptions,
  ) {
    this.posts = entitySql(dataSource, NewsPostRow);
    this.lease = new Lease(dataSource, LEASE_NAME, this.holder, options.leaseMs);
    this.clock = options.clock ?? now;
    this.loop = new PassLoop(() => this.sweep(), {
      intervalMs: options.intervalMs,
      clock: this.clock,
      logger,
      what: 'news scheduler',
    });
  }

  private get running(): boolean {
    return this.loop.running;
  }

  start(): void {
    this.loop.start();
  }

  /** Finishes the pass under way and releases the lease (what is due then waits for another replica or a restart). */
  async stop(): Promise<void> {
    await this.loop.stop();
    try {
      await this.lease.release(this.clock());
    } catch (error) {
      this.logger.warn({ err: error }, 'news scheduler could not release its lease; it expires on its own');
    }
  }

  /** A pass soon (a post was scheduled, or one is due); resolves when it has run. */
  wake(): Promise<void> {
    return this.loop.wake();
  }

  /** A pass at `at`, when that is before the next regular one. */
  wakeAt(at: Date): void {
    this.loop.wakeAt(at);
  }

  /** Holding the lease: publishes every post due now, then sleeps until the next one if it comes before the interval. */
  private async sweep(): Promise<void> {
    if (!(await this.lease.acquire(this.clock()))) return;
    while (this.running && (await this.publishDue()) === BATCH);
    if (!this.running) return;
    const [next] = await this.posts.selectColumns(
      this.dataSource.manager,
      ['scheduledAt'],
      `WHERE ${this.posts.column('status')} = ? ORDER BY ${this.posts.column('scheduledAt')} ASC LIMIT 1`,
      [NewsPostStatus.SCHEDULED],
    );
    if (next?.scheduledAt) this.wakeAt(next.scheduledAt);
  }

  /** Publishes a batch of due posts, oldest due first; answers how many were due. */
  private async publishDue(): Promise<number> {
    const posts = this.posts;
    const at = this.clock();
    const due = await posts.selectColumns(
      this.dataSource.manager,
      ['id', 'orgId', 'status', 'scheduledAt', 'publishedAt', 'archivedAt'],
      `WHERE ${posts.column('status')} = ? AND ${posts.column('scheduledAt')} <= ? ` +
        `ORDER BY ${posts.column('scheduledAt')} ASC, ${posts.column('id')} ASC LIMIT ${BATCH}`,
      [NewsPostStatus.SCHEDULED, posts.value('scheduledAt', at)],
    );
    let published = 0;
    for (const post of due) {
      if (!this.running) break;
      if (await this.publish(post, at)) published += 1;
    }
    if (published) this.relay().nudge();
    return due.length;
  }

  /**
   * Publishes one post as read: still SCHEDULED for the same time (a replica that published it, or a member who
   * rescheduled, unpublished or published it meanwhile, changed that). Its publication time is the time it was due.
   */
  private async publish(
    post: Pick<NewsPostRow, 'id' | 'orgId' | 'status' | 'scheduledAt' | 'publishedAt' | 'archivedAt'>,
    at: Date,
  ): Promise<boolean> {
    const dueAt = post.scheduledAt ?? at;
    return this.dataSource.transaction(async (manager) => {
      const changed = await this.posts.update(
        manager,
        { ...moved(post, 'publish', dueAt), updatedAt: at },
        { id: post.id, status: NewsPostStatus.SCHEDULED, scheduledAt: dueAt },
      );
      if (!changed) return false;
      const event = contentEvent({
        object: 'news_post',
        verb: 'published',
        orgId: post.orgId,
        id: post.id,
        status: NewsPostStatus.PUBLISHED,
      });
      await enqueueEvents(manager, [event], at);
      return true;
    });
  }
}
