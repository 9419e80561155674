import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
  apiKeyPrincipal,
  dropTestDatabase,
  eventually,
  newId,
  openDataSource,
  statementRunning,
  testDbUrl,
  type OutboxRelay,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { contentData } from '../src/data';
import { HelpArticleRow, HelpArticleTagRow, NewsPostCategoryRow, NewsPostTagRow } from '../src/entities';
import { HelpFolderWrites } from '../src/domain/help-folders';
import { checkFolder, checkTags } from '../src/domain/help-articles/references';
import { HelpArticleWrites } from '../src/domain/help-articles/write';
import { orgTermIds } from '../src/domain/news/references';
import { existingTermIds, TAXONOMY, TAXONOMY_KINDS, TaxonomyTerms, type TaxonomyKind } from '../src/domain/taxonomy';

/**
 * What an article or post links to (a help tag, news category or tag, a help folder) deleted while a writer links it:
 * the writer's check holds the referenced row until it commits, so the delete waits and then takes the new link with
 * it (docs/decisions/0203, 0197). Needs row locks: MySQL family only (`npm run test:infra`); SQLite is serial.
 */
describe('content: deleting what a writer is linking', function () {
  const url = testDbUrl('content-reference-races');
  let dataSource: DataSource;
  const orgId = newId();
  const principal = apiKeyPrincipal(orgId, [ApiScope.CONTENT_READ, ApiScope.CONTENT_MANAGE]);
  const relay = { nudge: () => undefined } as unknown as OutboxRelay;

  before(async function () {
    if (!process.env.SVC_TEST_MYSQL_URL) this.skip();
    dataSource = await openDataSource({ ...contentData, url }, { migrate: true });
  });

  after(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(url);
  });

  /**
   * Resolves once `pending` settled, or once a locking read of this database (the delete's first statement) is seen
   * running on two polls in a row: blocked behind the writer, not merely passing by.
   */
  async function settledOrBlocked(pending: Promise<unknown>): Promise<void> {
    let settled = false;
    pending.then(
      () => (settled = true),
      () => (settled = true),
    );
    let seen = 0;
    await eventually(async () => {
      if (settled) return true;
      const [row] = (await dataSource.query(
        "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO NOT LIKE '%PROCESSLIST%' AND INFO LIKE '%FOR UPDATE'",
      )) as { n: number | string }[];
      seen = Number(row?.n) > 0 ? seen + 1 : 0;
      return seen >= 2;
    });
  }

  /** Runs `link` in a transaction whose first step is `check`, with `remove` started between the two. */
  async function linkWhileRemoved<T>(
    check: (manager: DataSource['manager']) => Promise<unknown>,
    remove: () => Promise<T>,
    link: (manager: DataSource['manager']) => Promise<unknown>,
  ): Promise<T> {
    const writer = dataSource.createQueryRunner();
    await writer.connect();
    try {
      await writer.startTransaction();
      await check(writer.manager);
      const removed = remove();
      await settledOrBlocked(removed);
      await link(writer.manager);
      await writer.commitTransaction();
      return await removed;
    } finally {
      await writer.release();
    }
  }

  const termChecks: { kind: TaxonomyKind; check: (manager: DataSource['manager'], id: string) => Promise<unknown> }[] =
    [
      { kind: 'help_tag', check: (manager, id) => checkTags(manager, orgId, [id]) },
      { kind: 'news_category', check: (manager, id) => orgTermIds(manager, orgId, [id], 'categoryIds') },
      { kind: 'news_tag', check: (manager, id) => orgTermIds(manager, orgId, [id], 'tagIds') },
    ];

  for (const { kind, check } of termChecks)
    it(`${kind}: a term deleted after the writer checked it leaves no link behind`, async () => {
      const terms = new TaxonomyTerms(kind, dataSource, () => relay);
      const term = await terms.create(principal, { name: `linked ${newId()}` });
      const itemId = newId();
      const deleted = await linkWhileRemoved(
        (manager) => check(manager, term.id),
        () => terms.delete(principal, term.id),
        (manager) =>
          kind === 'help_tag'
            ? manager.insert(HelpArticleTagRow, { orgId, articleId: itemId, tagId: term.id })
            : kind === 'news_category'
              ? manager.insert(NewsPostCategoryRow, { orgId, postId: itemId, categoryId: term.id })
              : manager.insert(NewsPostTagRow, { orgId, postId: itemId, tagId: term.id }),
      );
      expect(deleted).to.deep.equal({ id: term.id, linksRemoved: 1 });
      const links =
        (await dataSource.manager.countBy(HelpArticleTagRow, { tagId: term.id })) +
        (await dataSource.manager.countBy(NewsPostCategoryRow, { categoryId: term.id })) +
        (await dataSource.manager.countBy(NewsPostTagRow, { tagId: term.id }));
      expect(links).to.equal(0);
    });

  for (const kind of TAXONOMY_KINDS)
    it(`${kind}: the delete waits for the writer, then removes its new link with the term`, async () => {
      const terms = new TaxonomyTerms(kind, dataSource, () => relay);
      const { link, row } = TAXONOMY[kind];
      const term = await terms.create(principal, { name: `linked ${newId()}` });
      const writer = dataSource.createQueryRunner();
      await writer.connect();
      await writer.startTransaction();
      expect(await existingTermIds(writer.manager, kind, orgId, [term.id])).to.deep.equal([term.id]);
      const deleted = terms.delete(principal, term.id);
      // Whichever of its statements it is, the delete waits for the writer's lock on the term.
      const table = dataSource.getMetadata(row).tableName;
      await statementRunning(dataSource, `%FROM \`${table}\`%`);
      await writer.manager.insert(link.row, {
        orgId,
        [link.termColumn]: term.id,
        [kind === 'help_tag' ? 'articleId' : 'postId']: newId(),
      });
      await writer.commitTransaction();
      await writer.release();
      expect(await deleted).to.deep.equal({ id: term.id, linksRemoved: 1 });
      expect(await dataSource.manager.countBy(link.row, { [link.termColumn]: term.id })).to.equal(0);
    });

  it('help folder: a folder deleted after the writer checked it leaves no article filed in it', async () => {
    const folders = new HelpFolderWrites(dataSource, () => relay);
    const articles = new HelpArticleWrites(dataSource, () => relay);
    const folder = await folders.create(principal, { name: `moved into ${newId()}` });
    const article = await articles.create(principal, { title: `filed ${newId()}`, bodyMarkdown: 'Body', tagIds: [] });
    const deleted = await linkWhileRemoved(
      (manager) => checkFolder(manager, orgId, folder.id),
      () => folders.delete(principal, { id: folder.id, moveContentToParent: true }),
      (manager) => manager.update(HelpArticleRow, { id: article.id, orgId }, { folderId: folder.id }),
    );
    expect(deleted).to.deep.equal({ id: folder.id, movedFolders: 0, movedArticles: 1 });
    const stored = await dataSource.manager.findOneByOrFail(HelpArticleRow, { id: article.id });
    expect(stored.folderId).to.equal(null);
  });
});
