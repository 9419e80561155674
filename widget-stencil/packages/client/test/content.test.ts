import { expect } from 'chai';
import { ContentReadError, ContentReader } from '../src/index.js';
import { FakeApi, json } from './fake-api.js';

describe('ContentReader', () => {
  const page = { data: [], totalCount: 0, hasMore: false };
  const realFetch = globalThis.fetch;
  let api: FakeApi;

  // The reader's default JSON GET is the global fetch: the fake widget-api stands in for it.
  beforeEach(() => {
    api = new FakeApi();
    globalThis.fetch = api.fetch;
  });

  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it('lists help articles with the locale and a trimmed query; a blank query is not sent', async () => {
    api.routes.set('GET /help/wk%2F1/articles', () => json(200, page));
    const reader = new ContentReader('https://api.example.com/', 'wk/1');
    expect(await reader.helpArticles({ locale: 'pt', q: '  refund policy ', limit: 20 })).to.deep.equal(page);
    await reader.helpArticles({ locale: 'en', q: '   ', offset: 20 });
    expect(api.requests.map((request) => request.path)).to.deep.equal([
      '/help/wk%2F1/articles?locale=pt&q=refund+policy&limit=20',
      '/help/wk%2F1/articles?locale=en&offset=20',
    ]);
  });

  it('reads one article and the news by their paths', async () => {
    const article = {
      id: 'a 1',
      locale: 'en',
      title: 'T',
      bodyHtml: '<p>x</p>',
      folderId: null,
      updatedAt: '',
      locales: ['en'],
    };
    api.routes.set('GET /help/wk/articles/a%201', () => json(200, article));
    api.routes.set('GET /news/wk', () => json(200, page));
    const reader = new ContentReader('https://api.example.com', 'wk');
    expect(await reader.helpArticle('a 1', 'fr')).to.deep.equal(article);
    expect(await reader.news({ locale: 'fr', limit: 10 })).to.deep.equal(page);
    expect(api.requests.map((request) => request.path)).to.deep.equal([
      '/help/wk/articles/a%201?locale=fr',
      '/news/wk?locale=fr&limit=10',
    ]);
  });

  it('throws a ContentReadError with the status of a refused read, 0 for a failed network', async () => {
    const reader = new ContentReader('https://api.example.com', 'wk');
    const refused = await reader.helpArticle('missing', 'en').catch((caught: unknown) => caught);
    expect(refused).to.be.instanceOf(ContentReadError).and.include({ status: 404 });
    globalThis.fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    const failed = await reader.news({ locale: 'en' }).catch((caught: unknown) => caught);
    expect(failed).to.be.instanceOf(ContentReadError).and.include({ status: 0 });
  });
});
