/** A refused read (`status` 0: the network failed). */
export class ContentReadError extends Error {
  constructor(readonly status: number) {
    super(`content read failed: ${status || 'network'}`);
  }
}

async function fetchJson(url: string): Promise<unknown> {
  const response = await fetch(url).catch(() => null);
  if (!response?.ok) throw new ContentReadError(response?.status ?? 0);
  return response.json();
}

/** One published help article in a list (`GET /api/web/help/:publicKey/articles`). */
export interface HelpArticleSummary {
  id: string;
  /** The translation's locale, chosen per article by the server's fallback. */
  locale: string;
  title: string;
  slug: string;
  excerpt: string;
  folderId: string | null;
  updatedAt: string;
}

/** One published help article (`GET /api/web/help/:publicKey/articles/:articleId`). */
export interface HelpArticle {
  id: string;
  locale: string;
  title: string;
  /** Rendered from Markdown and sanitised by the content service: the only text the widget inserts as HTML. */
  bodyHtml: string;
  folderId: string | null;
  updatedAt: string;
  /** The locales this article is published in. */
  locales: string[];
}

export interface NewsTerm {
  id: string;
  name: string;
}

/** One published news post (`GET /api/web/news/:publicKey`), newest first. */
export interface NewsPost {
  id: string;
  locale: string;
  title: string;
  /** Sanitised by the content service, like {@link HelpArticle.bodyHtml}. */
  bodyHtml: string;
  publishedAt: string;
  categories: NewsTerm[];
  tags: NewsTerm[];
}

export interface ContentPage<T> {
  data: T[];
  totalCount: number;
  hasMore: boolean;
}

export interface ContentQuery {
  /** BCP-47; the server falls back per item (requested, its prefixes, the integration's default). */
  locale: string;
  limit?: number;
  offset?: number;
}

export interface HelpArticleQuery extends ContentQuery {
  /** Full-text search over published articles; blank lists them all. */
  q?: string;
  folderId?: string;
}

/**
 * The public reads of published help articles and news of one integration's organisation (no credentials). It
 * imports nothing else of this package: the widget loads it in a chunk of its own that must not share the chunk of
 * the chat (docs/decisions/0205).
 */
export class ContentReader {
  private readonly base: string;
  private readonly key: string;

  constructor(apiUrl: string, publicKey: string) {
    this.base = `${apiUrl.replace(/\/+$/, '')}/api/web`;
    this.key = encodeURIComponent(publicKey);
  }

  helpArticles(query: HelpArticleQuery): Promise<ContentPage<HelpArticleSummary>> {
    return this.read(`help/${this.key}/articles`, { ...query, q: query.q?.trim() || undefined });
  }

  helpArticle(articleId: string, locale: string): Promise<HelpArticle> {
    return this.read(`help/${this.key}/articles/${encodeURIComponent(articleId)}`, { locale });
  }

  news(query: ContentQuery): Promise<ContentPage<NewsPost>> {
    return this.read(`news/${this.key}`, query);
  }

  private async read<T>(path: string, query: object): Promise<T> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query) as [string, unknown][])
      if (value !== undefined) search.set(name, String(value));
    return (await fetchJson(`${this.base}/${path}?${search}`)) as T;
  }
}
