import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { dropTestDatabase, newId, openDataSource, searchWords, testDbUrl } from '@svc/kit';
import { HelpArticleStatus } from '@svc/proto/content/v1/content';
import { contentData } from '../src/data';
import { HelpArticleTermRow, HelpArticleTranslationRow } from '../src/entities';
import { indexTranslation, searchTranslationIds } from '../src/domain/help-articles/search-index';

describe('help article search index', () => {
  const url = testDbUrl('content_search');
  let dataSource: DataSource;
  const orgId = newId();
  const otherOrgId = newId();

  before(async () => {
    dataSource = await openDataSource({ ...contentData, url }, { migrate: true });
  });
  after(async () => {
    await dataSource.destroy();
    await dropTestDatabase(url);
  });

  async function translation(
    fields: Partial<HelpArticleTranslationRow> & Pick<HelpArticleTranslationRow, 'title' | 'bodyMarkdown'>,
  ): Promise<HelpArticleTranslationRow> {
    const at = new Date();
    const row = Object.assign(new HelpArticleTranslationRow(), {
      id: newId(),
      orgId,
      articleId: newId(),
      locale: 'en',
      slug: newId(),
      bodyHtml: '',
      status: HelpArticleStatus.DRAFT,
      publishedAt: null,
      createdAt: at,
      updatedAt: at,
      ...fields,
    });
    await dataSource.manager.insert(HelpArticleTranslationRow, row);
    await indexTranslation(dataSource.manager, row);
    return row;
  }

  const search = (query: string, filter = {}, org = orgId) =>
    searchTranslationIds(dataSource.manager, org, searchWords(query), filter);

  it('finds translations holding every word as a prefix, folded, and only in the org asked for', async () => {
    const reset = await translation({ title: 'Réinitialiser le mot de passe', bodyMarkdown: 'Cliquez **Oublié**' });
    const billing = await translation({ title: 'Invoices and billing', bodyMarkdown: 'Download an invoice' });
    await translation({ orgId: otherOrgId, title: 'Invoices elsewhere', bodyMarkdown: '' });
    expect(await search('reinit OUBLIE')).to.deep.equal([reset.id]);
    expect(await search('invoic')).to.deep.equal([billing.id]);
    expect(await search('invoice passe')).to.deep.equal([]);
    expect(await search('invoices', {}, otherOrgId)).to.have.length(1);
  });

  it('filters by status and locale, and re-indexing replaces the old words', async () => {
    const draft = await translation({ title: 'Shipping times', bodyMarkdown: 'Parcels', locale: 'en' });
    const published = await translation({
      title: 'Shipping abroad',
      bodyMarkdown: 'Parcels',
      locale: 'pt-BR',
      status: HelpArticleStatus.PUBLISHED,
    });
    expect(await search('shipping')).to.have.members([draft.id, published.id]);
    expect(await search('shipping', { status: HelpArticleStatus.PUBLISHED })).to.deep.equal([published.id]);
    expect(await search('shipping', { locales: ['en', 'pt'] })).to.deep.equal([draft.id]);
    draft.title = 'Delivery times';
    await indexTranslation(dataSource.manager, draft);
    expect(await search('shipping')).to.deep.equal([published.id]);
    expect(await search('delivery')).to.deep.equal([draft.id]);
    expect(await dataSource.manager.countBy(HelpArticleTermRow, { translationId: draft.id })).to.equal(3);
  });
});
