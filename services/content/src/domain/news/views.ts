import { toIso, toIsoOrUndefined } from '@svc/kit';
import type { NewsPost, NewsPostTranslation } from '@svc/proto/content/v1/news_posts';
import type { NewsPostRow, NewsPostTranslationRow } from '../../entities';
import { localeFallbacks } from '../locales';

/** A post with what its view needs: every translation, its category and tag ids. */
export interface StoredNewsPost {
  post: NewsPostRow;
  translations: NewsPostTranslationRow[];
  categoryIds: string[];
  tagIds: string[];
}

function translationView(row: NewsPostTranslationRow): NewsPostTranslation {
  return {
    locale: row.locale,
    title: row.title,
    bodyMarkdown: row.bodyMarkdown,
    bodyHtml: row.bodyHtml,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}

/**
 * The post as callers see it, its text fields those of the translation `locale` asks for: the tag, then its shorter
 * prefixes, then the post's default locale (which always has one).
 */
export function newsPostView({ post, translations, categoryIds, tagIds }: StoredNewsPost, locale?: string): NewsPost {
  const ordered = [...translations].sort((a, b) =>
    a.locale === post.defaultLocale ? -1 : b.locale === post.defaultLocale ? 1 : a.locale.localeCompare(b.locale),
  );
  const shown =
    localeFallbacks(locale, post.defaultLocale)
      .map((tag) => ordered.find((t) => t.locale === tag))
      .find((t) => t !== undefined) ?? ordered[0];
  return {
    id: post.id,
    status: post.status,
    scheduledAt: toIsoOrUndefined(post.scheduledAt),
    publishedAt: toIsoOrUndefined(post.publishedAt),
    archivedAt: toIsoOrUndefined(post.archivedAt),
    defaultLocale: post.defaultLocale,
    locale: shown?.locale ?? post.defaultLocale,
    title: shown?.title ?? '',
    bodyMarkdown: shown?.bodyMarkdown ?? '',
    bodyHtml: shown?.bodyHtml ?? '',
    categoryIds: [...categoryIds].sort(),
    tagIds: [...tagIds].sort(),
    authorId: post.authorId,
    createdAt: toIso(post.createdAt),
    updatedAt: toIso(post.updatedAt),
    translations: ordered.map(translationView),
  };
}
