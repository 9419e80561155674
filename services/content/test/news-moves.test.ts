import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
  OutboxEvent,
  apiKeyPrincipal,
  dropTestDatabase,
  newId,
  openDataSource,
  testDbUrl,
  type OutboxRelay,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { Envelope } from '@svc/proto/events/v1';
import { contentData } from '../src/data';
import { NewsPosts } from '../src/domain/news/posts';
import type { NewsPostMove } from '../src/domain/news/states';

/** A retried move (docs/decisions/0190): the post as it is, no second event. */
describe('NewsPosts.move', () => {
  const url = testDbUrl('content-news-moves');
  let dataSource: DataSource;
  let posts: NewsPosts;
  const orgId = newId();
  const principal = apiKeyPrincipal(orgId, [ApiScope.CONTENT_READ, ApiScope.CONTENT_MANAGE]);
  const relay = { nudge: () => undefined } as unknown as OutboxRelay;
  const eventTypes = async (id: string) =>
    (await dataSource.manager.find(OutboxEvent, { order: { createdAt: 'ASC', id: 'ASC' } }))
      .map((row) => Envelope.decode(Buffer.from(row.payload, 'base64')))
      .filter((envelope) => envelope.content?.id === id)
      .map((envelope) => envelope.type);

  before(async () => {
    dataSource = await openDataSource({ ...contentData, url }, { migrate: true });
    posts = new NewsPosts(dataSource, () => relay);
  });

  after(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(url);
  });

  const retries: { move: NewsPostMove; first?: NewsPostMove; verb: string }[] = [
    { move: 'publish', verb: 'news_post.published' },
    { move: 'archive', verb: 'news_post.archived' },
    { move: 'unpublish', first: 'publish', verb: 'news_post.unpublished' },
  ];
  for (const { move, first, verb } of retries)
    it(`returns the post unchanged, with no second event, when ${move} is retried`, async () => {
      const created = await posts.create(principal, {
        title: 'Retried',
        bodyMarkdown: 'Body',
        categoryIds: [],
        tagIds: [],
      });
      if (first) await posts.move(principal, created.post.id, first);
      const once = await posts.move(principal, created.post.id, move);
      const twice = await posts.move(principal, created.post.id, move);
      expect(twice).to.deep.equal(once);
      expect((await eventTypes(created.post.id)).filter((type) => type === verb)).to.have.length(1);
    });

  it('returns the post unchanged, with no second event, when a schedule is retried with the same time', async () => {
    const created = await posts.create(principal, {
      title: 'Retried',
      bodyMarkdown: 'Body',
      categoryIds: [],
      tagIds: [],
    });
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const once = await posts.move(principal, created.post.id, 'schedule', at);
    expect(await posts.move(principal, created.post.id, 'schedule', at)).to.deep.equal(once);
    expect(await eventTypes(created.post.id)).to.deep.equal(['news_post.created', 'news_post.scheduled']);
  });
});
