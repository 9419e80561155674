import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { DomainError, dropTestDatabase, newId, now, openDataSource, testDbUrl } from '@svc/kit';
import { contentData } from '../src/data';
import { existingTermIds, requireTermIds, TAXONOMY, TAXONOMY_KINDS } from '../src/domain/taxonomy';

describe('taxonomy: which term ids are the org’s', () => {
  let dataSource: DataSource;
  const url = testDbUrl('content-taxonomy-ids');
  const orgId = newId();
  const otherOrg = newId();

  async function term(kind: (typeof TAXONOMY_KINDS)[number], org: string, name: string): Promise<string> {
    const at = now();
    const id = newId(at);
    await dataSource.manager.insert(TAXONOMY[kind].row, {
      id,
      orgId: org,
      name,
      nameKey: name.toLowerCase(),
      createdAt: at,
      updatedAt: at,
    });
    return id;
  }

  before(async () => {
    dataSource = await openDataSource({ ...contentData, url }, { migrate: true });
  });

  after(async () => {
    await dataSource.destroy();
    await dropTestDatabase(url);
  });

  for (const kind of TAXONOMY_KINDS) {
    it(`${kind}: finds the org’s own terms of that kind only`, async () => {
      const own = await term(kind, orgId, `own ${kind}`);
      const foreign = await term(kind, otherOrg, `foreign ${kind}`);
      const otherKind = await term(kind === 'help_tag' ? 'news_tag' : 'help_tag', orgId, `other kind ${kind}`);
      const found = await existingTermIds(dataSource.manager, kind, orgId, [own, own, foreign, otherKind, 'bad id']);
      expect(found).to.deep.equal([own]);
      expect(await existingTermIds(dataSource.manager, kind, orgId, [])).to.deep.equal([]);
    });
  }

  it('requireTermIds answers the ids once each, or NOT_FOUND naming the field', async () => {
    const a = await term('news_category', orgId, 'a');
    const b = await term('news_category', orgId, 'b');
    const foreign = await term('news_category', otherOrg, 'c');
    expect(await requireTermIds(dataSource.manager, 'news_category', orgId, [b, a, b], 'categoryIds')).to.deep.equal([
      b,
      a,
    ]);
    const error = await requireTermIds(dataSource.manager, 'news_category', orgId, [a, foreign], 'categoryIds').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).code).to.equal('NOT_FOUND');
    expect((error as DomainError).details).to.deep.equal({ field: 'categoryIds', id: foreign });
  });
});
