import { expect } from 'chai';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { ApiScope } from '@svc/kit';
import { ContentFixtures, HelpArticleStatus, NewsPostStatus } from '../support/content';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { WidgetFixtures } from '../support/widget';
import { BrowserHarness } from './support/chromium';
import { HostPage } from './support/host-page';
import { hostHtml, widgetFrame } from './loader-fixture';
import { serveWidget, until, widgetPage } from './widget-support';

// A script, an event handler and a javascript: link in the Markdown source: none may reach the visitor.
const HOSTILE_MARKDOWN = [
  '## Refunds within 30 days',
  '',
  'Send the parcel back and we **refund** you. [Our policy](https://example.com/policy)',
  '',
  '<script>window.svcPwned = "script"</script>',
  '<img src="x" onerror="window.svcPwned = \'onerror\'">',
  '[click](javascript:window.svcPwned=1)',
].join('\n');

/**
 * The Help and News tabs of svc-widget in Chromium against the whole stack, with the element on a page and through
 * loader.js: help articles and news posts written and published through GraphQL (ContentFixtures), read by the
 * widget from widget-api's public endpoints. Every content read is recorded.
 */
describe('svc-widget Help and News tabs (Chromium, whole stack)', function () {
  const harness = new StackHarness({});
  const browser = new BrowserHarness();
  const host = new HostPage();
  let org: TestOrg;
  let publicKey: string;
  let context: BrowserContext;
  let reads: URL[];
  const ids: Record<'refunds' | 'shipping', string> = { refunds: '', shipping: '' };

  before(async function () {
    this.timeout(180_000);
    await Promise.all([harness.start(), browser.start(), host.start()]);
    serveWidget(host);
    org = await harness.newOrg('Widget content');
    const created = await new WidgetFixtures(harness, org).integration({ allowedOrigins: { origins: [host.origin] } });
    publicKey = created.integration.publicKey;
    const content = new ContentFixtures(
      harness,
      (await org.mintKey([ApiScope.CONTENT_READ, ApiScope.CONTENT_MANAGE])).key,
    );
    const published = (title: string, markdown: string) =>
      content.article([{ locale: 'en', title, markdown, status: HelpArticleStatus.PUBLISHED }]);
    ids.refunds = await published('Refund policy', HOSTILE_MARKDOWN);
    ids.shipping = await published('Shipping times', 'We ship in **2–3 days**.');
    // Published one after the other: the second is the newer.
    await content.newsPost({ status: NewsPostStatus.PUBLISHED }, [
      { locale: 'en', title: 'New autumn range', markdown: 'Scarves and hats.' },
      { locale: 'pt', title: 'Nova coleção de outono', markdown: 'Cachecóis e gorros.' },
    ]);
    await content.newsPost({ status: NewsPostStatus.PUBLISHED, categories: ['Announcements'] }, [
      { locale: 'en', title: 'Gift cards are here', markdown: 'Give a **gift**.' },
      { locale: 'pt', title: 'Chegaram os vales-presente', markdown: 'Dê um **presente**.' },
    ]);
    await content.newsPost({ status: NewsPostStatus.DRAFT }, [{ locale: 'en', title: 'Draft news' }]);
  });

  beforeEach(async () => {
    context = await browser.context();
    reads = [];
    context.on('request', (request) => {
      const url = new URL(request.url());
      if (/^\/api\/web\/(help|news)\//.test(url.pathname)) reads.push(url);
    });
  });

  afterEach(() => context.close());

  after(async () => {
    await browser.stop();
    await host.stop();
    await harness.stop();
  });

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
    expect(await posts.locator('h3').allInnerTexts()).to.deep.equal([
      'Chegaram os vales-presente',
      'Nova coleção de outono',
    ]);
    expect(await posts.first().locator('.body strong').innerText()).to.equal('presente');
    expect(await posts.first().locator('.terms').innerText()).to.contain('Announcements');
    expect(contentReads('news').map((url) => url.searchParams.get('locale'))).to.deep.equal(['pt']);
  });

  it("the element's showArticle(id) opens the panel on that article, showNews() on the News tab", async () => {
    const { page } = await elementPage();
    await page.evaluate(
      (id) =>
        (document.querySelector('svc-widget') as unknown as { showArticle(id: string): Promise<void> }).showArticle(id),
      ids.shipping,
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
      const { page, frame } = await loaderPage([['showArticle', ids.refunds]]);
      await frame.locator('article.help-article').getByRole('heading', { name: 'Refunds within 30 days' }).waitFor();
      await until(async () => expect(await page.$eval('iframe', (element) => element.clientHeight)).to.be.above(300));
      await svc(page, 'showNews');
      await frame.getByRole('tabpanel').locator('article.post', { hasText: 'Gift cards are here' }).waitFor();
      await svc(page, 'showArticle', ids.shipping);
      await frame.locator('article.help-article').getByRole('heading', { name: 'Shipping times' }).waitFor();
      expect(contentReads('help').map((url) => url.pathname.split('/').at(-1))).to.deep.equal([
        ids.refunds,
        ids.shipping,
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
