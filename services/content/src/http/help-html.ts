import { escapeUTF8 as escape } from 'entities';
import type { HelpOrg } from '../domain/public/help-orgs';
import { helpPaths, type Alternate, type HelpPage, type HelpSite } from './help-site';

const STYLE =
  'body{font:16px/1.6 system-ui,sans-serif;max-width:46rem;margin:0 auto;padding:1rem;color:#1f2328}' +
  'header{display:flex;justify-content:space-between;gap:1rem;border-bottom:1px solid #d0d7de;margin-bottom:1rem}' +
  'a{color:#0969da}ul.list{padding-left:1.2rem}.meta{color:#59636e;font-size:.9rem}nav.locales a{margin-left:.5rem}' +
  '.body img{max-width:100%}.body pre{overflow:auto;background:#f6f8fa;padding:.5rem}';

interface Layout {
  org: HelpOrg;
  /** Absolute URL of a path (hreflang and canonical links must be absolute). */
  absolute: (path: string) => string;
  lang: string;
  title: string;
  path: string;
  alternates: Alternate[];
  xDefault: string;
  main: string;
}

/**
 * The HTML of a help-center page. Everything is escaped but the article body, which was rendered from Markdown and
 * sanitised when written (domain/markdown.ts).
 */
function layout(page: Layout): string {
  const links = [
    `<link rel="canonical" href="${escape(page.absolute(page.path))}">`,
    ...page.alternates.map(
      (alternate) =>
        `<link rel="alternate" hreflang="${escape(alternate.locale)}" href="${escape(page.absolute(alternate.path))}">`,
    ),
    ...(page.alternates.length
      ? [`<link rel="alternate" hreflang="x-default" href="${escape(page.absolute(page.xDefault))}">`]
      : []),
  ];
  const languages = page.alternates
    .filter((alternate) => alternate.path !== page.path)
    .map(
      (alternate) =>
        `<a href="${escape(alternate.path)}" hreflang="${escape(alternate.locale)}" lang="${escape(alternate.locale)}">${escape(languageName(alternate.locale))}</a>`,
    );
  const home = page.lang ? helpPaths.home(page.org.slug, page.lang) : helpPaths.root(page.org.slug);
  return `<!doctype html>
<html lang="${escape(page.lang || 'en')}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(page.title)} · ${escape(page.org.name)}</title>
${links.join('\n')}
<style>${STYLE}</style>
</head>
<body>
<header><p><a href="${escape(home)}">${escape(page.org.name)} help center</a></p>${
    languages.length ? `<nav class="locales" aria-label="Languages">${languages.join('')}</nav>` : ''
  }</header>
<main>
${page.main}
</main>
</body>
</html>
`;
}

/** The page's HTML. */
export function renderPage(
  site: HelpSite,
  org: HelpOrg,
  page: HelpPage,
  absolute: (path: string) => string,
  /** The article's body (read for the one page shown, not for the whole site); ignored on other pages. */
  bodyHtml = '',
): string {
  const common = {
    org,
    absolute,
    lang: page.locale,
    path: page.path,
    alternates: page.alternates,
    xDefault: page.xDefault,
  };
  switch (page.kind) {
    case 'home':
      return layout({
        ...common,
        title: 'Help center',
        main: `<h1>${escape(org.name)} help center</h1>\n${folderList(site, page.locale, null)}${articleList(site, page.locale, null)}`,
      });
    case 'folder':
      return layout({
        ...common,
        title: page.folder.name,
        main: `${breadcrumb(site, page.locale, page.folder.parentId)}<h1>${escape(page.folder.name)}</h1>\n${
          page.folder.description ? `<p>${escape(page.folder.description)}</p>\n` : ''
        }${folderList(site, page.locale, page.folder.id)}${articleList(site, page.locale, page.folder.id)}`,
      });
    case 'article': {
      const updated = page.translation.updatedAt.toISOString();
      return layout({
        ...common,
        title: page.translation.title,
        main: `${breadcrumb(site, page.locale, page.article.article.folderId)}<article>
<h1>${escape(page.translation.title)}</h1>
<div class="body">${bodyHtml}</div>
<p class="meta">Updated <time datetime="${updated}">${updated.slice(0, 10)}</time></p>
</article>`,
      });
    }
  }
}

/** The x-default page: the help center's languages. */
export function renderRoot(site: HelpSite, org: HelpOrg, absolute: (path: string) => string): string {
  const homes = site.locales.map((locale) => ({ locale, path: helpPaths.home(org.slug, locale) }));
  const items = homes.map(
    (home) =>
      `<li><a href="${escape(home.path)}" hreflang="${escape(home.locale)}" lang="${escape(home.locale)}">${escape(languageName(home.locale))}</a></li>`,
  );
  return layout({
    org,
    absolute,
    lang: '',
    title: 'Help center',
    path: helpPaths.root(org.slug),
    alternates: homes,
    xDefault: helpPaths.root(org.slug),
    main: `<h1>${escape(org.name)} help center</h1>\n${
      items.length ? `<ul class="list">${items.join('')}</ul>` : '<p>No articles are published yet.</p>'
    }`,
  });
}

export function renderNotFound(): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Not found</title><style>${STYLE}</style></head>
<body><main><h1>Page not found</h1><p>There is no published help page at this address.</p></main></body>
</html>
`;
}

function folderList(site: HelpSite, locale: string, parentId: string | null): string {
  const folders = site.foldersIn(locale, parentId);
  if (!folders.length) return '';
  const items = folders.map(
    (folder) =>
      `<li><a href="${escape(helpPaths.folder(site.orgSlug, locale, folder.id))}">${escape(folder.name)}</a> <span class="meta">(${site.articleCount(locale, folder.id)})</span></li>`,
  );
  return `<h2>Folders</h2>\n<ul class="list">${items.join('')}</ul>\n`;
}

function articleList(site: HelpSite, locale: string, folderId: string | null): string {
  const articles = site.articlesIn(locale, folderId);
  if (!articles.length) return '';
  const items = articles.map(
    ({ translation }) =>
      `<li><a href="${escape(helpPaths.article(site.orgSlug, locale, translation.slug))}">${escape(translation.title)}</a></li>`,
  );
  return `<h2>Articles</h2>\n<ul class="list">${items.join('')}</ul>\n`;
}

function breadcrumb(site: HelpSite, locale: string, folderId: string | null): string {
  const crumbs = [
    `<a href="${escape(helpPaths.home(site.orgSlug, locale))}">Home</a>`,
    ...site
      .trail(folderId)
      .map(
        (folder) => `<a href="${escape(helpPaths.folder(site.orgSlug, locale, folder.id))}">${escape(folder.name)}</a>`,
      ),
  ];
  return `<nav class="meta" aria-label="Breadcrumb">${crumbs.join(' › ')}</nav>\n`;
}

/** A locale's name in its own language (`pt-BR` → `português (Brasil)`), the tag when the runtime does not know it. */
function languageName(locale: string): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'language' }).of(locale) ?? locale;
  } catch {
    return locale;
  }
}
