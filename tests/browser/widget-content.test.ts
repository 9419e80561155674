import { expect } from 'chai';
import type { BrowserContext, Frame, Page, Route } from 'playwright-core';
import { renderMarkdown } from '@svc/content';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { WidgetFixtures } from '../support/widget';
import { BrowserHarness } from './support/chromium';
import { HostPage } from './support/host-page';
import { hostHtml, widgetFrame } from './loader-fixture';
import { serveWidget, until, widgetPage } from './widget-support';

// A script and an event handler in the Markdown source: the content service's renderer must leave neither.
const HOSTILE_MARKDOWN = [
  '## Refunds within 30 days',
  '',
  'Send the parcel back and we **refund** you. [Our policy](https://example.com/policy)',
  '',
  '<script>window.svcPwned = "script"</script>',
  '<img src="x" onerror="window.svcPwned = \'onerror\'">',
  '[click](javascript:window.svcPwned=1)',
].join('\n');

const ARTICLES = [
  { id: 'art-refunds', title: 'Refund policy', excerpt: 'Send the parcel back…', markdown: HOSTILE_MARKDOWN },
  { id: 'art-shipping', title: 'Shipping times', excerpt: 'Two to three days…', markdown: 'We ship in **2–3 days**.' },
];

const NEWS = [
  { id: 'news-2', title: 'Gift cards are here', publishedAt: '2026-11-20T10:00:00.000Z', markdown: 'Give a **gift**.' },
  { id: 'news-1', title: 'New autumn range', publishedAt: '2026-10-01T10:00:00.000Z', markdown: 'Scarves and hats.' },
];

/**
 * The Help and News tabs of svc-widget in Chromium, with the element on a page and through loader.js: the stack
 * serves the config and the frame; the content reads (`/api/web/help/…`, `/api/web/news/…`, the public helper's
 * contract of the issue-18 plan) answer from published items whose bodies are rendered by the content service's own
 * Markdown renderer. Every content request is recorded.
 */
describe('svc-widget Help and News tabs (Chromium)', function () {
  const harness = new StackHarness({});
  const browser = new BrowserHarness();
  const host = new HostPage();
  let org: TestOrg;
  let publicKey: string;
  let context: BrowserContext;
  let reads: URL[];

  before(async function () {
    this.timeout(180_000);
    await Promise.all([harness.start(), browser.start(), host.start()]);
    serveWidget(host);
    org = await harness.newOrg('Widget content');
    const created = await new WidgetFixtures(harness, org).integration({ allowedOrigins: { origins: [host.origin] } });
    publicKey = created.integration.publicKey;
  });

  beforeEach(async () => {
    context = await browser.context();
    reads = [];
    await context.route(`${harness.url}/api/web/help/**`, (route) => answerHelp(route));
    await context.route(`${harness.url}/api/web/news/**`, (route) => answerNews(route));
  });

  afterEach(() => context.close());

  after(async () => {
    await browser.stop();
    await host.stop();
    await harness.stop();
  });

  function fulfil(route: Route, status: number, body: unknown) {
    return route.fulfill({
      status,
      contentType: 'application/json',
      headers: { 'access-control-allow-origin': '*' },
      body: JSON.stringify(body),
    });
  }

  function answerHelp(route: Route) {
    const url = new URL(route.request().url());
    reads.push(url);
    const locale = url.searchParams.get('locale') ?? '';
    const one = /\/articles\/([^/]+)$/.exec(url.pathname);
    if (one) {
      const article = ARTICLES.find((item) => item.id === decodeURIComponent(one[1]!));
      if (!article) return fulfil(route, 404, { error: { code: 'NOT_FOUND', message: 'not found' } });
      const { id, title, markdown } = article;
      const updatedAt = '2026-11-01T00:00:00.000Z';
      return fulfil(route, 200, {
        id,
        locale,
        title,
        bodyHtml: renderMarkdown(markdown),
        folderId: null,
        updatedAt,
        locales: [locale],
      });
    }
    const q = (url.searchParams.get('q') ?? '').toLowerCase();
    const data = ARTICLES.filter((item) => item.title.toLowerCase().includes(q)).map(({ id, title, excerpt }) => ({
      id,
      locale,
      title,
      slug: id,
      excerpt,
      folderId: null,
      updatedAt: '2026-11-01T00:00:00.000Z',
    }));
    return fulfil(route, 200, { data, totalCount: data.length, hasMore: false });
  }

  function answerNews(route: Route) {
    const url = new URL(route.request().url());
    reads.push(url);
    const locale = url.searchParams.get('locale') ?? '';
    const data = NEWS.map(({ id, title, publishedAt, markdown }) => ({
      id,
      locale,
      title,
      bodyHtml: renderMarkdown(markdown),
      publishedAt,
      categories: [{ id: 'cat-1', name: 'Announcements' }],
      tags: [],
    }));
    return fulfil(route, 200, { data, totalCount: data.length, hasMore: false });
  }

  const contentReads = (kind: string) => reads.filter((url) => url.pathname.startsWith(`/api/web/${kind}/`));

  /** A page with `<svc-widget>`; `scripts` are the script URLs it fetched so far. */
  async function elementPage(lang = 'en'): Promise<{ page: Page; scripts: string[] }> {
    const page = await context.newPage();
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(request.url());
    });
    const url = widgetPage(host, `/content-${Math.random().toString(36).slice(2)}.html`, {
      attributes: { 'public-key': publicKey, api: harness.url },
      lang,
    });
    await page.goto(url);
    await page.getByRole('button', { name: /open chat|abrir o chat/i }).waitFor();
    return { page, scripts };
  }

  it('loads the tabs in a chunk of their own when one is first opened; Help lists, searches and reads an article', async () => {
    const { page, scripts } = await elementPage();
    const before = scripts.length;
    await page.getByRole('button', { name: /open chat/i }).click();
    const tabs = page.getByRole('tablist');
    expect(await tabs.getByRole('tab').allInnerTexts()).to.deep.equal(['Chat', 'Help', 'News']);
    expect(contentReads('help'), 'nothing is read before a tab is opened').to.deep.equal([]);
    await tabs.getByRole('tab', { name: 'Help' }).click();
    const panel = page.getByRole('tabpanel');
    await panel.getByRole('button', { name: /Shipping times/ }).waitFor();
    expect(scripts.length, 'the Help tab fetched one more chunk').to.equal(before + 1);
    expect(await tabs.getByRole('tab', { name: 'Help' }).getAttribute('aria-selected')).to.equal('true');
    expect(contentReads('help')[0]?.searchParams.get('locale')).to.equal('en');

    await panel.getByRole('searchbox', { name: 'Search articles' }).fill('refund');
    await until(async () => expect(await panel.getByRole('listitem').count()).to.equal(1));
    expect(contentReads('help').at(-1)?.searchParams.get('q')).to.equal('refund');

    await panel.getByRole('button', { name: /Refund policy/ }).click();
    const article = panel.locator('article.help-article');
    await article.getByRole('heading', { name: 'Refunds within 30 days' }).waitFor();
    expect(await article.locator('strong').innerText()).to.equal('refund');
    expect(await article.getByRole('link', { name: 'Our policy' }).getAttribute('href')).to.equal(
      'https://example.com/policy',
    );
    expect(await article.locator('script, [onerror]').count(), 'no script nor handler reached the page').to.equal(0);
    expect(await page.evaluate(() => (window as unknown as { svcPwned?: unknown }).svcPwned)).to.equal(undefined);

    await panel.getByRole('button', { name: 'All articles' }).click();
    await panel.getByRole('searchbox', { name: 'Search articles' }).waitFor();
  });

  it('shows the News tab newest first, in the UI locale, with its categories', async () => {
    const { page } = await elementPage('pt-BR');
    await page.getByRole('button', { name: /abrir o chat/i }).click();
    await page.getByRole('tab', { name: 'Novidades' }).click();
    const posts = page.getByRole('tabpanel').locator('article.post');
    await posts.first().waitFor();
    expect(await posts.locator('h3').allInnerTexts()).to.deep.equal(['Gift cards are here', 'New autumn range']);
    expect(await posts.first().locator('.body strong').innerText()).to.equal('gift');
    expect(await posts.first().locator('.terms').innerText()).to.contain('Announcements');
    expect(contentReads('news').map((url) => url.searchParams.get('locale'))).to.deep.equal(['pt']);
  });

  it("the element's showArticle(id) opens the panel on that article, showNews() on the News tab", async () => {
    const { page } = await elementPage();
    await page.evaluate(() =>
      (document.querySelector('svc-widget') as unknown as { showArticle(id: string): Promise<void> }).showArticle(
        'art-shipping',
      ),
    );
    await page.locator('article.help-article').getByRole('heading', { name: 'Shipping times' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Help' }).getAttribute('aria-selected')).to.equal('true');
    await page.evaluate(() =>
      (document.querySelector('svc-widget') as unknown as { showNews(): Promise<void> }).showNews(),
    );
    await page.getByRole('tabpanel').locator('article.post').first().waitFor();
    expect(await page.getByRole('tab', { name: 'News' }).getAttribute('aria-selected')).to.equal('true');
  });

  describe('through loader.js', () => {
    async function loaderPage(early: unknown[][] = []): Promise<{ page: Page; frame: Frame }> {
      const page = await context.newPage();
      const url = host.page(
        `/shop-${Math.random().toString(36).slice(2)}.html`,
        hostHtml({ loaderUrl: `${harness.url}/widget/loader.js`, attributes: { 'data-public-key': publicKey }, early }),
      );
      await page.goto(url);
      const frame = await widgetFrame(page);
      // Queued calls open the panel before the launcher could be shown.
      if (!early.length) await frame.getByRole('button', { name: /open chat/i }).waitFor();
      return { page, frame };
    }

    const svc = (page: Page, action: string, argument?: unknown) =>
      page.evaluate(
        ([a, b]) => (window as unknown as { Svc(action: string, argument?: unknown): void }).Svc(a as string, b),
        [action, argument] as const,
      );

    it("Svc('showArticle', id) opens the panel on that article (also when queued by the stub), Svc('showNews') the news", async () => {
      const { page, frame } = await loaderPage([['showArticle', 'art-refunds']]);
      await frame.locator('article.help-article').getByRole('heading', { name: 'Refunds within 30 days' }).waitFor();
      await until(async () => expect(await page.$eval('iframe', (element) => element.clientHeight)).to.be.above(300));
      await svc(page, 'showNews');
      await frame.getByRole('tabpanel').locator('article.post', { hasText: 'Gift cards are here' }).waitFor();
      await svc(page, 'showArticle', 'art-shipping');
      await frame.locator('article.help-article').getByRole('heading', { name: 'Shipping times' }).waitFor();
      expect(contentReads('help').map((url) => url.pathname.split('/').at(-1))).to.deep.equal([
        'art-refunds',
        'art-shipping',
      ]);
    });

    it("drops Svc('showArticle') without a non-blank string id (nothing read, Help not shown); a later Svc('showNews') works", async () => {
      const { page, frame } = await loaderPage();
      await svc(page, 'showArticle', '  ');
      await svc(page, 'showArticle', 42);
      await svc(page, 'showNews');
      await frame.getByRole('tabpanel').locator('article.post').first().waitFor();
      expect(contentReads('help')).to.deep.equal([]);
      expect(await frame.getByRole('tab', { name: 'Help' }).getAttribute('aria-selected')).to.equal('false');
    });
  });
});
