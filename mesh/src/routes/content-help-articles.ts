import { contentPage, contentPageRequest, given } from './content-page';
import type { Route } from './route';

type Json = Record<string, unknown>;

/** An article with the fields of its current translation (the one asked for) at the top level. */
export function helpArticleOutput(article: Json): Json {
  const { current, translations, ...shared } = article;
  const { locale, title, slug, bodyMarkdown, bodyHtml, status, publishedAt } = (current as Json | undefined) ?? {};
  return {
    ...shared,
    tagIds: shared.tagIds ?? [],
    folderId: shared.folderId ?? null,
    locale,
    title,
    slug,
    bodyMarkdown,
    bodyHtml,
    status,
    publishedAt: publishedAt ?? null,
    translations: ((translations as Json[] | undefined) ?? []).map((t) => ({
      ...t,
      publishedAt: t.publishedAt ?? null,
    })),
  };
}

export const contentHelpArticleRoutes: Record<string, Route> = {
  helpArticles: {
    service: 'contentHelpArticles',
    method: 'ListHelpArticles',
    request: contentPageRequest,
    response: (page) => contentPage(page, helpArticleOutput),
  },
  helpArticle: {
    service: 'contentHelpArticles',
    method: 'GetHelpArticle',
    request: given,
    response: helpArticleOutput,
  },
  createHelpArticle: {
    service: 'contentHelpArticles',
    method: 'CreateHelpArticle',
    request: (a) => given(a.input as Json),
    response: helpArticleOutput,
  },
  updateHelpArticle: {
    service: 'contentHelpArticles',
    method: 'UpdateHelpArticle',
    request: (a) => {
      const input = a.input as Json;
      return {
        ...given(input),
        id: a.id,
        // folderId: null takes the article out of its folder; tagIds replaces the tags when given.
        clearFolder: 'folderId' in input && input.folderId === null,
        hasTagIds: Array.isArray(input.tagIds),
        tagIds: Array.isArray(input.tagIds) ? input.tagIds : [],
      };
    },
    response: helpArticleOutput,
  },
  createHelpArticleTranslation: {
    service: 'contentHelpArticles',
    method: 'CreateHelpArticleTranslation',
    request: (a) => ({ ...given(a.input as Json), id: a.id }),
    response: helpArticleOutput,
  },
  publishHelpArticle: {
    service: 'contentHelpArticles',
    method: 'PublishHelpArticle',
    request: given,
    response: helpArticleOutput,
  },
  unpublishHelpArticle: {
    service: 'contentHelpArticles',
    method: 'UnpublishHelpArticle',
    request: given,
    response: helpArticleOutput,
  },
  deleteHelpArticle: { service: 'contentHelpArticles', method: 'DeleteHelpArticle' },
};
