import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
  apiKeyPrincipal,
  DomainError,
  dropTestDatabase,
  newId,
  now,
  openDataSource,
  OutboxEvent,
  testDbUrl,
  type OutboxRelay,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { Envelope } from '@svc/proto/events/v1';
import { contentData } from '../src/data';
import {
  existingTermIds,
  requireTermIds,
  TAXONOMY,
  TAXONOMY_KINDS,
  TaxonomyTerms,
  type TaxonomyKind,
} from '../src/domain/taxonomy';

/** The domain error a call fails with. */
const failure = (call: Promise<unknown>): Promise<DomainError> =>
  call.then(
    () => Promise.reject(new Error('expected the call to fail')),
    (error: unknown) => (error instanceof DomainError ? error : Promise.reject(error)),
  );

describe('taxonomy terms: the domain of help tags, news categories and news tags', () => {
  let dataSource: DataSource;
  const url = testDbUrl('content-taxonomy');
  const relay = { nudge: () => undefined } as unknown as OutboxRelay;
  const orgId = newId();
  const manager = apiKeyPrincipal(orgId, [ApiScope.CONTENT_READ, ApiScope.CONTENT_MANAGE]);

  /** The types of the events written for `id`, oldest first. */
  async function eventsOf(id: string): Promise<string[]> {
    const rows = await dataSource.manager.find(OutboxEvent, { where: { partitionKey: id }, order: { id: 'ASC' } });
    return rows.map((row) => Envelope.decode(Buffer.from(row.payload, 'base64')).type);
  }

  /** A term written straight to its table (a name key folded the simple way: these tests use ASCII names). */
  async function term(kind: TaxonomyKind, org: string, name: string): Promise<string> {
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
    describe(kind, () => {
      const terms = () => new TaxonomyTerms(kind, dataSource, () => relay);

      it('checks the scope itself: CONTENT_READ to read, CONTENT_MANAGE to write', async () => {
        const term = await terms().create(manager, { name: `scoped ${newId()}` });
        const readOnly = apiKeyPrincipal(orgId, [ApiScope.CONTENT_READ]);
        const manageOnly = apiKeyPrincipal(orgId, [ApiScope.CONTENT_MANAGE]);
        for (const refused of [terms().list(manageOnly, { page: undefined }), terms().get(manageOnly, term.id)])
          expect((await failure(refused)).details).to.deep.equal({ scope: String(ApiScope.CONTENT_READ) });
        for (const refused of [
          terms().create(readOnly, { name: 'x' }),
          terms().update(readOnly, { id: term.id, name: 'x' }),
          terms().delete(readOnly, term.id),
        ])
          expect((await failure(refused)).details).to.deep.equal({ scope: String(ApiScope.CONTENT_MANAGE) });
      });

      it('writes each change’s event in its transaction, and none for a refused or empty change', async () => {
        const name = `evented ${newId()}`;
        const term = await terms().create(manager, { name });
        expect((await failure(terms().create(manager, { name: name.toUpperCase() }))).code).to.equal('CONFLICT');
        await terms().update(manager, { id: term.id, name });
        await terms().update(manager, { id: term.id, name: `${name}!` });
        await terms().delete(manager, term.id);
        expect(await eventsOf(term.id)).to.deep.equal([`${kind}.created`, `${kind}.updated`, `${kind}.deleted`]);
      });

      it('refuses all but one of several creates of one name at once (CONFLICT naming name)', async () => {
        const name = `race ${newId()}`;
        const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => terms().create(manager, { name })));
        const refusals = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as DomainError] : []));
        expect(refusals.map((e) => [e.code, e.details.field])).to.deep.equal([
          ['CONFLICT', 'name'],
          ['CONFLICT', 'name'],
          ['CONFLICT', 'name'],
        ]);
        expect(await dataSource.manager.countBy(TAXONOMY[kind].row, { orgId })).to.be.greaterThan(0);
      });

      it('deletes the term and every link to it in one transaction, leaving other terms’ links', async () => {
        const doomed = await terms().create(manager, { name: `doomed ${newId()}` });
        const kept = await terms().create(manager, { name: `kept ${newId()}` });
        const { link } = TAXONOMY[kind];
        const items = [newId(), newId()];
        const linkRow = (item: string, term: string) => ({
          orgId,
          [link.termColumn]: term,
          [kind === 'help_tag' ? 'articleId' : 'postId']: item,
        });
        for (const item of items) await dataSource.manager.insert(link.row, linkRow(item, doomed.id));
        await dataSource.manager.insert(link.row, linkRow(items[0] as string, kept.id));
        expect((await terms().get(manager, doomed.id)).itemCount).to.equal(2);
        expect(await terms().delete(manager, doomed.id)).to.deep.equal({ id: doomed.id, linksRemoved: 2 });
        expect(await dataSource.manager.countBy(link.row, { [link.termColumn]: doomed.id })).to.equal(0);
        expect(await dataSource.manager.countBy(link.row, { [link.termColumn]: kept.id })).to.equal(1);
        expect((await failure(terms().get(manager, doomed.id))).code).to.equal('NOT_FOUND');
      });
    });
  }

  it('keeps the kinds apart: the same name in each kind, and one kind’s id is not found as another’s', async () => {
    const name = `shared ${newId()}`;
    const created = new Map<TaxonomyKind, string>();
    for (const kind of TAXONOMY_KINDS)
      created.set(kind, (await new TaxonomyTerms(kind, dataSource, () => relay).create(manager, { name })).id);
    const helpTagId = created.get('help_tag') as string;
    const newsTags = new TaxonomyTerms('news_tag', dataSource, () => relay);
    expect((await failure(newsTags.get(manager, helpTagId))).code).to.equal('NOT_FOUND');
  });

  describe('which term ids are the org’s (for the areas that link terms)', () => {
    const otherOrg = newId();

    for (const kind of TAXONOMY_KINDS) {
      it(`${kind}: existingTermIds finds the org’s own terms of that kind only, each once`, async () => {
        const own = await term(kind, orgId, `own ${newId()}`);
        const foreign = await term(kind, otherOrg, `foreign ${newId()}`);
        const otherKind = await term(kind === 'help_tag' ? 'news_tag' : 'help_tag', orgId, `other ${newId()}`);
        const found = await existingTermIds(dataSource.manager, kind, orgId, [own, own, foreign, otherKind, 'bad id']);
        expect(found).to.deep.equal([own]);
        expect(await existingTermIds(dataSource.manager, kind, orgId, [])).to.deep.equal([]);
      });
    }

    it('requireTermIds answers the ids once each in their order, or NOT_FOUND naming the field', async () => {
      const a = await term('news_category', orgId, `a ${newId()}`);
      const b = await term('news_category', orgId, `b ${newId()}`);
      const foreign = await term('news_category', otherOrg, `c ${newId()}`);
      const required = (ids: string[]) =>
        requireTermIds(dataSource.manager, 'news_category', orgId, ids, 'categoryIds');
      expect(await required([b, a, b])).to.deep.equal([b, a]);
      const error = await failure(required([a, foreign]));
      expect([error.code, error.details]).to.deep.equal(['NOT_FOUND', { field: 'categoryIds', id: foreign }]);
    });
  });
});
