import { expect } from 'chai';
import { type StackHarness, type TestOrg } from '../support/stack-harness';
import { sharedStack } from '../support/shared-stack';
import { ContentFixtures, HelpArticleStatus, NewsPostStatus } from '../support/content';
import { SITE, WidgetFixtures, web } from '../support/widget';

const { PUBLISHED } = HelpArticleStatus;

interface ArticleSummary {
  id: string;
  locale: string;
  title: string;
  slug: string;
  excerpt: string;
  folderId: string | null;
}
interface Page<T> {
  data: T[];
  totalCount: number;
  hasMore: boolean;
}
interface NewsItem {
  id: string;
  locale: string;
  title: string;
  bodyHtml: string;
  categories: { id: string; name: string }[];
  tags: { id: string; name: string }[];
}

describe('content public reads: widget help and news, public help pages (whole stack over HTTP)', function () {
  let harness: StackHarness;
  let url: string;
  let org: TestOrg;
  let orgSlug: string;
  let key: string;
  let otherKey: string;
  type Seeded =
    'start' | 'billing' | 'empty' | 'install' | 'invoice' | 'secret' | 'bonjour' | 'hola' | 'oldNews' | 'newNews';
  const ids = {} as Record<Seeded, string>;
  const slugs: Record<string, string> = {};

  before(async function () {
    this.timeout(120_000);
    harness = await sharedStack();
    url = harness.url;
    org = await harness.newOrg('Public Help');
    const other = await harness.newOrg('Other Help');
    key = (await new WidgetFixtures(harness, org).integration({ defaultLocale: 'de' })).integration.publicKey;
    otherKey = (await new WidgetFixtures(harness, other).integration()).integration.publicKey;
    const login = await harness.graphql<{ login: { org: { slug: string } } }>(
      'mutation($e: String!, $p: String!) { login(email: $e, password: $p) { org { slug } } }',
      { e: org.ownerEmail, p: org.ownerPassword },
    );
    orgSlug = login.body.data?.login.org.slug ?? '';

    const content = new ContentFixtures(harness, (await org.mintKey(['CONTENT_READ', 'CONTENT_MANAGE'])).key);
    ids.start = await content.folder('Getting started', null, 'First steps & more');
    ids.billing = await content.folder('Billing', ids.start);
    ids.empty = await content.folder('Drafts only');
    const seed = (name: string, locale: string, title: string, status = PUBLISHED) => {
      slugs[`${name}:${locale}`] = `${name}-${locale.toLowerCase()}`;
      return { locale, title, status, slug: slugs[`${name}:${locale}`], markdown: `${title}: **step** one & two.` };
    };
    ids.install = await content.article(
      [
        seed('install', 'en', 'Install the widget'),
        seed('install', 'pt', 'Instalar o widget'),
        seed('install', 'pt-BR', 'Instalar o widget (rascunho)', HelpArticleStatus.DRAFT),
        seed('install', 'de', 'Widget installieren (Entwurf)', HelpArticleStatus.DRAFT),
      ],
      ids.start,
    );
    ids.invoice = await content.article(
      [seed('invoice', 'en', 'Pay an invoice'), seed('invoice', 'de', 'Rechnung bezahlen')],
      ids.billing,
    );
    ids.secret = await content.article([seed('secret', 'en', 'Secret draft', HelpArticleStatus.DRAFT)], ids.empty);
    ids.bonjour = await content.article([
      seed('bonjour', 'fr', 'Bonjour tout le monde'),
      seed('bonjour', 'en', 'Hello draft', HelpArticleStatus.DRAFT),
    ]);
    ids.hola = await content.article([
      seed('hola', 'en', 'Hola draft', HelpArticleStatus.DRAFT),
      seed('hola', 'es', 'Hola mundo'),
    ]);
    const otherContent = new ContentFixtures(harness, (await other.mintKey(['CONTENT_READ', 'CONTENT_MANAGE'])).key);
    await otherContent.article([seed('elsewhere', 'en', 'Install elsewhere')]);

    // Published one after the other: the second is the newer.
    ids.oldNews = await content.newsPost(
      { status: NewsPostStatus.PUBLISHED, categories: ['Release', 'Announcements'], tags: ['web'] },
      [{ locale: 'en', title: 'Old news' }],
    );
    ids.newNews = await content.newsPost({ status: NewsPostStatus.PUBLISHED }, [
      { locale: 'en', title: 'New news' },
      { locale: 'pt-BR', title: 'Notícia nova' },
    ]);
    for (const status of [NewsPostStatus.DRAFT, NewsPostStatus.SCHEDULED, NewsPostStatus.ARCHIVED] as const)
      await content.newsPost({ status }, [{ locale: 'en', title: `Hidden ${status}` }]);
  });

  const articles = (query = '', publicKey = key) =>
    web<Page<ArticleSummary>>(url, `/help/${publicKey}/articles${query}`, { origin: SITE });
  const shown = (page: Page<ArticleSummary>) =>
    Object.fromEntries(page.data.map((article) => [article.id, article.locale]));

  describe('GET /api/web/help/:publicKey/articles', () => {
    it('shows each published article in pt-BR, else pt, else the integration default, else its own default', async () => {
      const answer = await articles('?locale=pt-br');
      expect(answer.status).to.equal(200);
      expect(shown(answer.body)).to.deep.equal({ [ids.install]: 'pt', [ids.invoice]: 'de', [ids.bonjour]: 'fr' });
      expect(answer.body).to.include({ totalCount: 3, hasMore: false });
      const install = answer.body.data.find((article) => article.id === ids.install);
      expect(install).to.include({ title: 'Instalar o widget', slug: slugs['install:pt'], folderId: ids.start });
      expect(install?.excerpt).to.equal('Instalar o widget: step one & two.');
    });

    it('uses the integration default, then the own default, when no locale is asked for', async () => {
      const answer = await articles();
      expect(shown(answer.body)).to.deep.equal({ [ids.install]: 'en', [ids.invoice]: 'de', [ids.bonjour]: 'fr' });
      // Ordered by title: "Bonjour…", "Install…", "Rechnung…".
      expect(answer.body.data.map((article) => article.id)).to.deep.equal([ids.bonjour, ids.install, ids.invoice]);
    });

    it('leaves out drafts and articles with no published translation in the chain', async () => {
      const english = await articles('?locale=en');
      expect(Object.keys(shown(english.body))).to.have.members([ids.install, ids.invoice, ids.bonjour]);
      const spanish = await articles('?locale=es');
      expect(shown(spanish.body)[ids.hola]).to.equal('es');
      expect(JSON.stringify([english.body, spanish.body])).not.to.match(/draft|Entwurf|rascunho/i);
    });

    it('never shows another org its articles', async () => {
      const theirs = await articles('?locale=en', otherKey);
      expect(theirs.body.data.map((article) => article.title)).to.deep.equal(['Install elsewhere']);
      const ours = await articles('?locale=en&q=elsewhere');
      expect(ours.body.data).to.deep.equal([]);
      const byId = await web(url, `/help/${otherKey}/articles/${ids.install}`, { origin: SITE });
      expect(byId.status).to.equal(404);
    });

    it('searches the shown translations by word prefixes', async () => {
      const invoice = await articles('?locale=en&q=invoi');
      expect(shown(invoice.body)).to.deep.equal({ [ids.invoice]: 'en' });
      // "Rechnung" is only in the German translation, which an English reader is not shown.
      expect((await articles('?locale=en&q=rechnung')).body.data).to.deep.equal([]);
      expect(shown((await articles('?locale=de&q=rechnung')).body)).to.deep.equal({ [ids.invoice]: 'de' });
      expect((await articles('?locale=en&q=secret')).body.data).to.deep.equal([]);
      const bad = await articles('?q=a');
      expect(bad.status).to.equal(400);
    });

    it('filters by folder (its own articles) and pages without skips or repeats', async () => {
      expect(shown((await articles(`?locale=en&folderId=${ids.start}`)).body)).to.deep.equal({ [ids.install]: 'en' });
      const seen: string[] = [];
      for (let offset = 0; ; offset += 2) {
        const page = await articles(`?locale=en&limit=2&offset=${offset}`);
        expect(page.body.totalCount).to.equal(3);
        seen.push(...page.body.data.map((article) => article.id));
        if (!page.body.hasMore) break;
      }
      expect(seen).to.have.members([ids.install, ids.invoice, ids.bonjour]).and.to.have.length(3);
      expect((await articles('?limit=500')).status).to.equal(400);
    });

    it('answers CORS for an allowed origin, refuses another, and lets browsers reuse the answer (ETag, 304)', async () => {
      const allowed = await articles('?locale=en');
      expect(allowed.headers.get('access-control-allow-origin')).to.equal(SITE);
      expect(allowed.headers.get('cache-control')).to.match(/public, max-age=\d+/);
      const again = await fetch(`${url}/api/web/help/${key}/articles?locale=en`, {
        headers: { 'if-none-match': allowed.headers.get('etag') ?? '' },
      });
      expect(again.status).to.equal(304);
      // A shared cache must not hand an answer without CORS headers to a page that needs them.
      expect((await web(url, `/help/${key}/folders`)).headers.get('vary')).to.match(/origin/i);
      const refused = await web(url, `/help/${key}/articles`, { origin: 'https://evil.example' });
      expect(refused.status).to.equal(403);
      expect((await web(url, '/help/not-a-key/articles')).status).to.equal(404);
    });
  });

  describe('articles written through GraphQL', () => {
    it('appears to visitors once published, and goes once unpublished', async () => {
      const { key: apiKey } = await org.mintKey(['CONTENT_READ', 'CONTENT_MANAGE']);
      const created = await harness.graphql<{ createHelpArticle: { id: string; slug: string } }>(
        'mutation($i: CreateHelpArticleInput!) { createHelpArticle(input: $i) { id slug } }',
        { i: { title: 'Reset a password', bodyMarkdown: 'Use the *reset* link.', locale: 'en' } },
        apiKey,
      );
      const article = created.body.data?.createHelpArticle;
      if (!article) throw new Error(JSON.stringify(created.body));
      const visible = async () => {
        const list = await articles('?locale=en&q=password');
        const page = await fetch(`${url}/help/${orgSlug}/en/articles/${article.slug}`);
        return { listed: list.body.data.map((item) => item.id), page: page.status };
      };
      expect(await visible()).to.deep.equal({ listed: [], page: 404 });
      const toggle = (operation: string) =>
        harness.graphql(`mutation($id: String!) { ${operation}(id: $id) { id } }`, { id: article.id }, apiKey);
      await toggle('publishHelpArticle');
      expect(await visible()).to.deep.equal({ listed: [article.id], page: 200 });
      await toggle('unpublishHelpArticle');
      expect(await visible()).to.deep.equal({ listed: [], page: 404 });
    });
  });

  describe('GET /api/web/help/:publicKey/articles/:articleId', () => {
    it('answers the article in the chosen locale with its body and every published locale', async () => {
      const answer = await web<Record<string, unknown>>(url, `/help/${key}/articles/${ids.install}?locale=pt-BR`);
      expect(answer.status).to.equal(200);
      expect(answer.body).to.include({
        id: ids.install,
        locale: 'pt',
        title: 'Instalar o widget',
        folderId: ids.start,
      });
      expect(answer.body.bodyHtml).to.equal('<p>Instalar o widget: <strong>step</strong> one &amp; two.</p>\n');
      expect(answer.body.locales).to.deep.equal(['en', 'pt']);
    });

    it('is 404 NOT_FOUND for a draft, or an article with nothing published in the chain', async () => {
      const draft = await web<{ error: { code: string } }>(url, `/help/${key}/articles/${ids.secret}`);
      expect(draft.status).to.equal(404);
      expect(draft.body.error.code).to.equal('NOT_FOUND');
      expect((await web(url, `/help/${key}/articles/${ids.hola}?locale=en`)).status).to.equal(404);
      expect((await web(url, `/help/${key}/articles/${ids.hola}?locale=es`)).status).to.equal(200);
    });
  });

  describe('GET /api/web/help/:publicKey/folders', () => {
    it('lists the folders holding a shown article, depth first, counting sub-folders', async () => {
      const answer = await web<{ data: unknown[] }>(url, `/help/${key}/folders?locale=en`);
      expect(answer.body.data).to.deep.equal([
        { id: ids.start, parentId: null, name: 'Getting started', articleCount: 2 },
        { id: ids.billing, parentId: ids.start, name: 'Billing', articleCount: 1 },
      ]);
    });
  });

  describe('GET /api/web/news/:publicKey', () => {
    it('lists published posts only, newest first, in the chosen locale with categories and tags', async () => {
      const answer = await web<Page<NewsItem>>(url, `/news/${key}?locale=pt-BR`, { origin: SITE });
      expect(answer.status).to.equal(200);
      expect(answer.body).to.include({ totalCount: 2, hasMore: false });
      expect(answer.body.data.map((post) => [post.id, post.locale, post.title])).to.deep.equal([
        [ids.newNews, 'pt-BR', 'Notícia nova'],
        [ids.oldNews, 'en', 'Old news'],
      ]);
      expect(answer.body.data[1]?.categories.map((category) => category.name)).to.deep.equal([
        'Announcements',
        'Release',
      ]);
      expect(answer.body.data[1]?.tags.map((tag) => tag.name)).to.deep.equal(['web']);
      const paged = await web<Page<NewsItem>>(url, `/news/${key}?limit=1&offset=1`);
      expect(paged.body.data.map((post) => post.id)).to.deep.equal([ids.oldNews]);
      expect((await web<Page<NewsItem>>(url, `/news/${otherKey}`)).body.totalCount).to.equal(0);
    });
  });

  describe('public help pages /help/:orgSlug', () => {
    const page = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${url}/help/${orgSlug}${path}`, { headers, redirect: 'manual' });
    const alternatesOf = (html: string) =>
      Object.fromEntries(
        [...html.matchAll(/<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">/g)].map((m) => [m[1], m[2]]),
      );

    it('gives the org a slug from its name, shown to its admin', () => {
      expect(orgSlug).to.equal('public-help');
    });

    it('renders a published article with hreflang alternates for each published translation', async () => {
      const response = await page(`/en/articles/${slugs['install:en']}`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/html/);
      const html = await response.text();
      expect(html).to.include('<h1>Install the widget</h1>');
      expect(html).to.include('<p>Install the widget: <strong>step</strong> one &amp; two.</p>');
      expect(html).to.include('<html lang="en">');
      const base = `${url}/help/${orgSlug}`;
      expect(alternatesOf(html)).to.deep.equal({
        en: `${base}/en/articles/${slugs['install:en']}`,
        pt: `${base}/pt/articles/${slugs['install:pt']}`,
        'x-default': `${base}/en/articles/${slugs['install:en']}`,
      });
      expect(html).to.include('Getting started</a>');
    });

    it('renders a home per locale and folder pages, escaping names', async () => {
      const home = await (await page('/pt')).text();
      expect(home).to.include('Getting started</a>');
      expect(home).not.to.include('Billing');
      expect(await (await page(`/pt/folders/${ids.start}`)).text()).to.include('Instalar o widget</a>');
      const folder = await page(`/en/folders/${ids.start}`);
      expect(folder.status).to.equal(200);
      const html = await folder.text();
      expect(html).to.include('<p>First steps &amp; more</p>');
      expect(html).to.include('Billing</a>');
      expect(Object.keys(alternatesOf(html))).to.have.members(['en', 'pt', 'de', 'x-default']);
      const root = await (await page('')).text();
      expect(Object.keys(alternatesOf(root))).to.have.members(['de', 'en', 'es', 'fr', 'pt', 'x-default']);
    });

    it('lists exactly the published pages in the sitemap, with their alternates', async () => {
      const response = await page('/sitemap.xml');
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/xml/);
      const xml = await response.text();
      const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]?.replace(`${url}/help/${orgSlug}`, ''));
      const article = (name: string, locale: string) => `/${locale}/articles/${slugs[`${name}:${locale}`]}`;
      expect(locs).to.have.members([
        '/de',
        '/en',
        '/es',
        '/fr',
        '/pt',
        `/en/folders/${ids.start}`,
        `/pt/folders/${ids.start}`,
        `/de/folders/${ids.start}`,
        `/en/folders/${ids.billing}`,
        `/de/folders/${ids.billing}`,
        article('install', 'en'),
        article('install', 'pt'),
        article('invoice', 'en'),
        article('invoice', 'de'),
        article('bonjour', 'fr'),
        article('hola', 'es'),
      ]);
      expect(locs).to.have.length(16);
      expect(xml).to.include(
        `<xhtml:link rel="alternate" hreflang="de" href="${url}/help/${orgSlug}${article('invoice', 'de')}"/>`,
      );
    });

    it('answers cache headers with an ETag, and 304 for it', async () => {
      const first = await page('/en');
      expect(first.headers.get('cache-control')).to.equal('public, max-age=60, stale-while-revalidate=300');
      const etag = first.headers.get('etag') ?? '';
      expect(etag).to.match(/^"[^"]+"$/);
      expect((await page('/en', { 'if-none-match': etag })).status).to.equal(304);
    });

    it('is 404 for an unknown org, locale, folder, a draft or another org', async () => {
      for (const path of [
        `/en/articles/${slugs['secret:en']}`,
        `/pt-BR/articles/${slugs['install:pt-BR']}`,
        `/de/articles/${slugs['install:de']}`,
        `/en/articles/${slugs['elsewhere:en']}`,
        `/en/folders/${ids.empty}`,
        '/it',
        '/not a locale!',
      ]) {
        const response = await page(path);
        expect(response.status, path).to.equal(404);
        expect(await response.text()).to.include('Page not found');
      }
      expect((await fetch(`${url}/help/no-such-org/en`)).status).to.equal(404);
      expect((await fetch(`${url}/help/no-such-org/sitemap.xml`)).status).to.equal(404);
    });

    it('redirects a locale written otherwise to its canonical form', async () => {
      const response = await page(`/PT/articles/${slugs['install:pt']}`);
      expect(response.status).to.equal(301);
      expect(response.headers.get('location')).to.equal(`/help/${orgSlug}/pt/articles/${slugs['install:pt']}`);
    });
  });
});
