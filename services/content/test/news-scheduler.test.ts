import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
  ApiScope,
  EmbeddedBus,
  OutboxEvent,
  apiKeyPrincipal,
  callerMetadata,
  createLogger,
  dropTestDatabase,
  eventually,
  grpcClient,
  newId,
  openDataSource,
  testDbUrl,
  testEnv,
  unary,
  type OutboxRelay,
  type Subscription,
} from '@svc/kit';
import { NewsPostState_Status as NewsPostStatus } from '@svc/proto/content/v1/content';
import { NewsPostServiceClient } from '@svc/proto/content/v1/news_posts';
import { Envelope } from '@svc/proto/events/v1';
import { ContentApp, contentConfig, contentData } from '../src';
import { NEWS_TOPIC } from '../src/domain/events';
import { NewsScheduler } from '../src/domain/news/scheduler';
import { LeaseRow, NewsPostRow } from '../src/entities';

/** The `news_post.published` events among encoded envelopes: how many per post id. */
function publishedPerPost(envelopes: Buffer[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const bytes of envelopes) {
    const envelope = Envelope.decode(bytes);
    if (envelope.type !== 'news_post.published') continue;
    const id = envelope.content?.id ?? '';
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

describe('NewsScheduler', () => {
  const logger = createLogger('content-scheduler-test', 'silent');

  describe('two ContentApp replicas on one database, one restarted', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'content-scheduler-'));
    const config = contentConfig(
      testEnv('content', {
        DB_URL: testDbUrl('content_scheduler', path.join(dir, 'content.sqlite')),
        CONTENT_SCHEDULER_INTERVAL_MS: '50',
        CONTENT_SCHEDULER_LEASE_MS: '2000',
      }),
    );
    const bus = new EmbeddedBus({ pollMs: 20 });
    /** Every record relayed to the news topic, redeliveries included, with its event id. */
    const delivered: { id: string; value: Buffer }[] = [];
    let subscription: Subscription;

    before(async () => {
      await bus.start();
      subscription = await bus.subscribe({
        groupId: 'scheduler-test',
        topics: [config.KAFKA_TOPIC_PREFIX + NEWS_TOPIC],
        fromBeginning: true,
        handle: async (record) => {
          delivered.push({ id: record.headers?.['event-id'] ?? '', value: record.value });
        },
      });
    });

    after(async () => {
      await subscription.stop();
      await bus.stop();
      await dropTestDatabase(config.DB_URL);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('publishes each scheduled post exactly once, with one news_post.published event each', async function () {
      this.timeout(60_000);
      // The replicas' clock: moved past the posts' times by the test, never waited for.
      let clock = new Date();
      const replica = () => new ContentApp(config, { bus, logger, newsClock: () => clock });
      let first = replica();
      const second = replica();
      await first.start();
      await second.start();
      const principal = apiKeyPrincipal(newId(), [ApiScope.CONTENT_READ, ApiScope.CONTENT_MANAGE]);
      const metadata = await callerMetadata(principal, 'content');
      const clients = [first, second].map((app) => grpcClient(NewsPostServiceClient, `127.0.0.1:${app.grpcPort}`));
      const start = clock.getTime();
      const ids: string[] = [];
      try {
        // Twelve posts, created and scheduled through both replicas, due a minute apart from an hour ahead.
        for (let n = 0; n < 12; n += 1) {
          const client = clients[n % 2] as NewsPostServiceClient;
          const post = await unary(
            client.createNewsPost.bind(client),
            { title: `Post ${n}`, bodyMarkdown: '', categoryIds: [], tagIds: [] },
            metadata,
          );
          const at = new Date(start + 3_600_000 + n * 60_000).toISOString();
          await unary(client.scheduleNewsPost.bind(client), { id: post.id, at }, metadata);
          ids.push(post.id);
        }
      } finally {
        clients.forEach((client) => client.close());
      }
      const published = async () =>
        (await second.dataSource.getRepository(NewsPostRow).findBy(ids.map((id) => ({ id })))).filter(
          (post) => post.status === NewsPostStatus.PUBLISHED,
        ).length;
      try {
        clock = new Date(start + 3_600_000 + 5 * 60_000);
        await eventually(async () => (await published()) === 6, 30_000, 'the first six posts published');
        // One replica stops (releasing the lease if it held it) and starts again while six posts are still due.
        await first.stop();
        first = replica();
        await first.start();
        clock = new Date(start + 3_600_000 + 11 * 60_000);
        await eventually(async () => (await published()) === 12, 30_000, 'every post published');
        await eventually(
          async () => (await second.dataSource.getRepository(OutboxEvent).count()) === 0,
          10_000,
          'the outbox relayed',
        );
        const posts = await second.dataSource.getRepository(NewsPostRow).findBy(ids.map((id) => ({ id })));
        const due = (post: NewsPostRow) => start + 3_600_000 + ids.indexOf(post.id) * 60_000;
        for (const post of posts)
          expect([post.scheduledAt, post.publishedAt?.getTime()]).to.deep.equal([null, due(post)]);
      } finally {
        await first.stop();
        await second.stop();
      }
      await eventually(
        async () => ids.every((id) => publishedPerPost(delivered.map((d) => d.value)).has(id)),
        10_000,
        'every event delivered',
      );
      // The relay is at least once: a redelivered event carries its id, on which consumers dedupe.
      const distinct = [...new Map(delivered.map((d) => [d.id, d.value])).values()];
      const perPost = publishedPerPost(distinct);
      expect(ids.map((id) => perPost.get(id))).to.deep.equal(ids.map(() => 1));
    });
  });

  describe('the lease', () => {
    const url = testDbUrl('content_scheduler_lease');
    let dataSource: DataSource;
    const relay = { nudge: () => undefined } as unknown as OutboxRelay;

    before(async () => {
      dataSource = await openDataSource({ ...contentData, url }, { migrate: true });
    });

    after(async () => {
      await dataSource.destroy();
      await dropTestDatabase(url);
    });

    /** A post of a new org, SCHEDULED for `at`. */
    async function scheduledPost(at: Date): Promise<string> {
      const id = newId();
      await dataSource.getRepository(NewsPostRow).insert({
        id,
        orgId: newId(),
        authorId: '',
        defaultLocale: 'en',
        status: NewsPostStatus.SCHEDULED,
        scheduledAt: at,
        publishedAt: null,
        archivedAt: null,
        createdAt: at,
        updatedAt: at,
      });
      return id;
    }

    const outboxPublished = async () =>
      publishedPerPost(
        (await dataSource.getRepository(OutboxEvent).find()).map((row) => Buffer.from(row.payload, 'base64')),
      );

    it('publishes nothing while a replica that died holds the lease, and takes over once it expires', async () => {
      const start = new Date('2030-01-01T00:00:00.000Z');
      let clock = start;
      const due = await scheduledPost(new Date(start.getTime() - 1_000));
      await dataSource.getRepository(LeaseRow).save({
        name: 'news-scheduler',
        holder: 'a replica that died',
        expiresAt: new Date(start.getTime() + 30_000),
      });
      const scheduler = new NewsScheduler(dataSource, () => relay, logger, {
        intervalMs: 3_600_000,
        leaseMs: 30_000,
        clock: () => clock,
      });
      scheduler.start();
      try {
        await scheduler.wake();
        expect((await dataSource.getRepository(NewsPostRow).findOneByOrFail({ id: due })).status).to.equal(
          NewsPostStatus.SCHEDULED,
        );
        clock = new Date(start.getTime() + 30_000);
        await scheduler.wake();
        const published = await dataSource.getRepository(NewsPostRow).findOneByOrFail({ id: due });
        expect(published).to.deep.include({
          status: NewsPostStatus.PUBLISHED,
          publishedAt: new Date(start.getTime() - 1_000),
          scheduledAt: null,
        });
        expect((await outboxPublished()).get(due)).to.equal(1);
        expect((await dataSource.getRepository(LeaseRow).findOneByOrFail({ name: 'news-scheduler' })).holder).to.equal(
          scheduler.holder,
        );
      } finally {
        await scheduler.stop();
      }
      // A clean stop hands the lease over at once.
      const next = new NewsScheduler(dataSource, () => relay, logger, {
        intervalMs: 3_600_000,
        leaseMs: 30_000,
        clock: () => clock,
      });
      const later = await scheduledPost(new Date(clock.getTime() - 1));
      next.start();
      try {
        await next.wake();
        expect((await dataSource.getRepository(NewsPostRow).findOneByOrFail({ id: later })).status).to.equal(
          NewsPostStatus.PUBLISHED,
        );
      } finally {
        await next.stop();
      }
    });

    it('publishes a post once when two replicas sweep at the same time (a lease that expired mid-pass)', async () => {
      const at = new Date('2031-01-01T00:00:00.000Z');
      const ids = await Promise.all(Array.from({ length: 20 }, (_, n) => scheduledPost(new Date(at.getTime() - n))));
      // A lease of 0 ms has expired as soon as it is taken: both sweepers take it and sweep at once, each reading the
      // same due posts before either publishes one (on one data source: on SQLite two connections in one process
      // would only wait on each other's locks; on MariaDB its pool runs them side by side).
      const sweepers = [0, 1].map(
        () =>
          new NewsScheduler(dataSource, () => relay, logger, { intervalMs: 3_600_000, leaseMs: 0, clock: () => at }),
      );
      sweepers.forEach((s) => s.start());
      try {
        await Promise.all(sweepers.map((s) => s.wake()));
      } finally {
        await Promise.all(sweepers.map((s) => s.stop()));
      }
      const statuses = (await dataSource.getRepository(NewsPostRow).findBy(ids.map((id) => ({ id })))).map(
        (p) => p.status,
      );
      expect(statuses).to.deep.equal(ids.map(() => NewsPostStatus.PUBLISHED));
      const perPost = await outboxPublished();
      expect(ids.map((id) => perPost.get(id))).to.deep.equal(ids.map(() => 1));
    });
  });
});
