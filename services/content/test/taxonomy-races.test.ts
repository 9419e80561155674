import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
  apiKeyPrincipal,
  dropTestDatabase,
  newId,
  openDataSource,
  statementRunning,
  testDbUrl,
  type OutboxRelay,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { contentData } from '../src/data';
import { existingTermIds, TAXONOMY, TAXONOMY_KINDS, TaxonomyTerms } from '../src/domain/taxonomy';

/**
 * A term deleted while an article or post is being linked to it leaves no link behind (docs/decisions/0203). Needs
 * row locks, so it runs on the MySQL family only (`npm run test:infra`); SQLite runs transactions one at a time.
 */
describe('taxonomy: deleting a term while a writer links it', function () {
  const url = testDbUrl('content-taxonomy-races');
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
});
