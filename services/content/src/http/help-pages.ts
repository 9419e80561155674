import Router from '@koa/router';
import type { Context } from 'koa';
import type { DataSource } from 'typeorm';
import { NotFound, etagMatches, etagOf, type Logger } from '@svc/kit';
import type { HelpOrgs } from '../domain/public/help-orgs';
import { canonicalLocale } from '../domain/locales';
import { bodiesOf, publishedHelpOf } from '../domain/public/published-help';
import { renderNotFound, renderPage, renderRoot } from './help-html';
import { HelpSite, helpPaths } from './help-site';
import { renderSitemap } from './sitemap';

/** Pages change when an article is published: caches reuse one briefly and may serve it stale while refreshing. */
export const HELP_PAGE_CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=300';
const NOT_FOUND_CACHE_CONTROL = 'public, max-age=60';
/** Article bodies are sanitised when written; this is a second line (no script, no plugin, no framing). */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; img-src https: http: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export interface HelpPagesDeps {
  dataSource: DataSource;
  orgs: HelpOrgs;
  /** The public origin of the pages (CONTENT_PUBLIC_URL); empty: the request's own. */
  publicUrl: string;
  logger: Logger;
}

/**
 * The public help center (docs/decisions/0187–0189): `/help/:orgSlug` (its languages, the x-default page),
 * `/help/:orgSlug/:locale` (a home per locale), `…/:locale/folders/:folderId`, `…/:locale/articles/:slug` and
 * `/help/:orgSlug/sitemap.xml`. Server-rendered from published content only, cacheable, with an ETag.
 */
export function helpPagesRouter(deps: HelpPagesDeps): Router {
  const router = new Router({ prefix: '/help' });
  router.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof NotFound)) {
        deps.logger.error({ err: error, path: ctx.path }, 'help page failed');
        throw error;
      }
      ctx.status = 404;
      ctx.type = 'html';
      ctx.set('cache-control', NOT_FOUND_CACHE_CONTROL);
      ctx.body = renderNotFound();
    }
  });

  const siteOf = async (ctx: Context) => {
    const org = await deps.orgs.bySlug(String(ctx.params.orgSlug ?? ''));
    const site = new HelpSite(org.slug, await publishedHelpOf(deps.dataSource, org.id));
    const origin = deps.publicUrl.replace(/\/$/, '') || `${ctx.protocol}://${ctx.host}`;
    return { org, site, absolute: (path: string) => `${origin}${path}` };
  };

  router.get('/:orgSlug', async (ctx) => {
    const { org, site, absolute } = await siteOf(ctx);
    answer(ctx, 'html', renderRoot(site, org, absolute));
  });

  router.get('/:orgSlug/sitemap.xml', async (ctx) => {
    const { site, absolute } = await siteOf(ctx);
    answer(ctx, 'application/xml', renderSitemap(site, absolute));
  });

  const servePage = (pathOf: (orgSlug: string, locale: string, ctx: Context) => string) => async (ctx: Context) => {
    const { org, site, absolute } = await siteOf(ctx);
    const asked = String(ctx.params.locale ?? '');
    const locale = canonicalOrUndefined(asked);
    if (!locale) throw new NotFound('help page not found');
    const path = pathOf(org.slug, locale, ctx);
    if (locale !== asked) {
      // `pt-br` → `pt-BR`: one address per page.
      ctx.status = 301;
      ctx.set('cache-control', HELP_PAGE_CACHE_CONTROL);
      ctx.redirect(path);
      return;
    }
    const page = site.page(path);
    if (!page) throw new NotFound('help page not found');
    const body =
      page.kind === 'article'
        ? (await bodiesOf(deps.dataSource, [page.translation.id])).get(page.translation.id)
        : undefined;
    answer(ctx, 'html', renderPage(site, org, page, absolute, body));
  };
  const param = (ctx: Context, name: string) => String(ctx.params[name] ?? '');
  router.get('/:orgSlug/:locale', servePage(helpPaths.home));
  router.get(
    '/:orgSlug/:locale/folders/:folderId',
    servePage((orgSlug, locale, ctx) => helpPaths.folder(orgSlug, locale, param(ctx, 'folderId'))),
  );
  router.get(
    '/:orgSlug/:locale/articles/:slug',
    servePage((orgSlug, locale, ctx) => helpPaths.article(orgSlug, locale, param(ctx, 'slug'))),
  );

  return router;
}

function answer(ctx: Context, type: string, body: string): void {
  const etag = etagOf(body);
  ctx.set({ etag, 'cache-control': HELP_PAGE_CACHE_CONTROL, 'content-security-policy': CONTENT_SECURITY_POLICY });
  if (etagMatches(ctx.get('if-none-match'), etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = type;
  ctx.body = body;
}

function canonicalOrUndefined(locale: string): string | undefined {
  try {
    return canonicalLocale(locale);
  } catch {
    return undefined;
  }
}
