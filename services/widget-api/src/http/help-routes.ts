import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { etagMatches, etagOf } from '@svc/kit';
import type { ContentPageInfo } from '@svc/proto/content/v1/content';
import type { Backends } from '../domain/backends';
import type { Integration, Integrations } from '../domain/integrations';

/** Published help and news change rarely: browsers and CDNs reuse an answer this long; the ETag makes a check a 304. */
export const PUBLIC_CONTENT_CACHE_CONTROL = 'public, max-age=60';

export interface HelpRouteDeps {
  integrations: Integrations;
  backends: Backends;
  /** The CORS check of the integration (routes.ts): 403 for an origin it does not allow. */
  allowOrigin: (ctx: Context, found: Integration) => void;
  parse: <T>(schema: z.ZodType<T>, value: unknown) => T;
}

const locale = z.string().trim().max(35).default('');
const paging = {
  limit: z.coerce.number().int().optional(),
  offset: z.coerce.number().int().optional(),
};
const articlesQuery = z.object({
  locale,
  q: z.string().max(500).default(''),
  folderId: z.string().trim().max(24).default(''),
  ...paging,
});
const localeQuery = z.object({ locale });
const newsQuery = z.object({ locale, ...paging });

/**
 * The help center and news of a public key's org, as the widget's Help and News tabs read them (docs/widget-api.md):
 * only published content, each item in the locale chosen for `locale` with the integration's default locale as the
 * fallback (content's ContentPublicService, docs/decisions/0183). A disabled or unknown key is 404, like its config.
 */
export function addHelpRoutes(router: Router, deps: HelpRouteDeps): void {
  /** The key's org and the visitor's locales (the integration's default as the fallback), with the query checked. */
  const readerOf = async <T extends { locale: string }>(ctx: Context, schema: z.ZodType<T>) => {
    const found = await deps.integrations.active(String(ctx.params.publicKey ?? ''));
    deps.allowOrigin(ctx, found);
    const query = deps.parse(schema, ctx.query);
    return {
      orgId: found.orgId,
      query,
      locales: { locale: query.locale, fallbackLocale: found.integration.defaultLocale },
    };
  };

  router.get('/help/:publicKey/articles', async (ctx) => {
    const { orgId, query, locales } = await readerOf(ctx, articlesQuery);
    const page = await deps.backends.publicArticles(orgId, {
      ...locales,
      query: query.q,
      folderId: query.folderId,
      page: { limit: query.limit, offset: query.offset },
    });
    answer(ctx, {
      data: page.data.map((article) => ({ ...article, folderId: article.folderId ?? null })),
      ...pageFields(page.pageInfo),
    });
  });

  router.get('/help/:publicKey/articles/:articleId', async (ctx) => {
    const { orgId, locales } = await readerOf(ctx, localeQuery);
    const article = await deps.backends.publicArticle(orgId, {
      ...locales,
      articleId: String(ctx.params.articleId ?? ''),
    });
    answer(ctx, { ...article, folderId: article.folderId ?? null });
  });

  router.get('/help/:publicKey/folders', async (ctx) => {
    const { orgId, locales } = await readerOf(ctx, localeQuery);
    const folders = await deps.backends.publicFolders(orgId, locales);
    answer(ctx, { data: folders.data.map((folder) => ({ ...folder, parentId: folder.parentId ?? null })) });
  });

  router.get('/news/:publicKey', async (ctx) => {
    const { orgId, query, locales } = await readerOf(ctx, newsQuery);
    const page = await deps.backends.publicNews(orgId, {
      ...locales,
      page: { limit: query.limit, offset: query.offset },
    });
    answer(ctx, { data: page.data, ...pageFields(page.pageInfo) });
  });
}

function pageFields(info: ContentPageInfo | undefined) {
  return { totalCount: info?.totalCount ?? 0, hasMore: info?.hasMore ?? false };
}

/** A JSON answer browsers may reuse briefly, with its ETag (304 when the client holds it). */
export function answerCacheable(ctx: Context, body: string, cacheControl: string): void {
  const etag = etagOf(body);
  ctx.set({ etag, 'cache-control': cacheControl });
  // Shared caches keep one copy per Origin: an answer without CORS headers must not reach a page that needs them.
  ctx.vary('Origin');
  if (etagMatches(ctx.get('if-none-match'), etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'json';
  ctx.body = body;
}

function answer(ctx: Context, value: unknown): void {
  answerCacheable(ctx, JSON.stringify(value), PUBLIC_CONTENT_CACHE_CONTROL);
}
