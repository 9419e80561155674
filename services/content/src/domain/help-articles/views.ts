import type { HelpArticle, HelpArticleTranslation } from '@svc/proto/content/v1/help_articles';
import type { HelpArticleRow, HelpArticleTranslationRow } from '../../entities';

/** An article as read: its row, every translation (the default locale first, then by locale), its tags. */
export interface StoredArticle {
  article: HelpArticleRow;
  translations: HelpArticleTranslationRow[];
  tagIds: string[];
}

export function translationView(row: HelpArticleTranslationRow): HelpArticleTranslation {
  return {
    locale: row.locale,
    title: row.title,
    slug: row.slug,
    bodyMarkdown: row.bodyMarkdown,
    bodyHtml: row.bodyHtml,
    status: row.status,
    publishedAt: row.publishedAt?.toISOString(),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The article with `locale`'s translation as its current one (it must have it). */
export function articleView({ article, translations, tagIds }: StoredArticle, locale: string): HelpArticle {
  const current = translations.find((translation) => translation.locale === locale);
  if (!current) throw new Error(`article ${article.id} has no ${locale} translation`);
  return {
    id: article.id,
    folderId: article.folderId ?? undefined,
    tagIds,
    authorId: article.authorId,
    defaultLocale: article.defaultLocale,
    current: translationView(current),
    translations: translations.map(translationView),
    createdAt: article.createdAt.toISOString(),
    updatedAt: article.updatedAt.toISOString(),
  };
}
