import { In, type DataSource } from 'typeorm';
import { NotFound, searchWords, toIso } from '@svc/kit';
import { NewsPostState_Status as NewsPostStatus, HelpArticleStatus } from '@svc/proto/content/v1/content';
import type {
  PublicArticle,
  PublicArticlePage,
  PublicArticlesRequest,
  PublicArticleRequest,
  PublicFolderList,
  PublicFoldersRequest,
  PublicNamedTerm,
  PublicNewsPage,
  PublicNewsRequest,
} from '@svc/proto/content/v1/public';
import {
  NewsCategoryRow,
  NewsPostCategoryRow,
  NewsPostRow,
  NewsPostTagRow,
  NewsPostTranslationRow,
  NewsTagRow,
} from '../../entities';
import { searchTranslationIds } from '../help-articles/search-index';
import { offsetPageOf, pageInfoOf } from '../page';
import { excerptOf } from './excerpt';
import {
  bodiesOf,
  byTitle,
  publishedArticleOf,
  publishedHelpOf,
  subtreeCounts,
  treeOrder,
  type PublishedArticle,
  type PublishedTranslation,
} from './published-help';
import { ReaderLocales } from './reader-locales';

/** An article as a reader sees it: the translation chosen for them. */
interface ShownArticle {
  published: PublishedArticle;
  translation: PublishedTranslation;
}

/**
 * The reads of ContentPublicService (proto/svc/content/v1/public.proto): only published content of one org, each
 * item in the locale chosen for the reader (docs/decisions/0183).
 */
export class PublicReads {
  constructor(private readonly dataSource: DataSource) {}

  async articles(orgId: string, request: PublicArticlesRequest): Promise<PublicArticlePage> {
    const page = offsetPageOf(request.page);
    const reader = new ReaderLocales(request.locale, request.fallbackLocale);
    const words = request.query.trim() ? searchWords(request.query, 'query') : undefined;
    const help = await publishedHelpOf(this.dataSource, orgId);
    let shown = shownArticles(help.articles, reader);
    if (request.folderId) shown = shown.filter(({ published }) => published.article.folderId === request.folderId);
    if (words) {
      const matching = new Set(
        await searchTranslationIds(this.dataSource.manager, orgId, words, { status: HelpArticleStatus.PUBLISHED }),
      );
      shown = shown.filter(({ translation }) => matching.has(translation.id));
    }
    shown.sort((a, b) => byTitle(a.translation, b.translation));
    const slice = shown.slice(page.offset, page.offset + page.limit);
    const bodies = await bodiesOf(
      this.dataSource,
      slice.map(({ translation }) => translation.id),
    );
    return {
      data: slice.map(({ published, translation }) => ({
        id: published.article.id,
        locale: translation.locale,
        title: translation.title,
        slug: translation.slug,
        excerpt: excerptOf(bodies.get(translation.id) ?? ''),
        folderId: published.article.folderId ?? undefined,
        updatedAt: toIso(translation.updatedAt),
      })),
      pageInfo: pageInfoOf(page, shown.length),
    };
  }

  async article(orgId: string, request: PublicArticleRequest): Promise<PublicArticle> {
    const reader = new ReaderLocales(request.locale, request.fallbackLocale);
    const published = await publishedArticleOf(this.dataSource, orgId, request.articleId);
    const [shown] = published ? shownArticles([published], reader) : [];
    if (!published || !shown) throw new NotFound('help article not found', { field: 'articleId' });
    const bodies = await bodiesOf(this.dataSource, [shown.translation.id]);
    return {
      id: published.article.id,
      locale: shown.translation.locale,
      title: shown.translation.title,
      slug: shown.translation.slug,
      bodyHtml: bodies.get(shown.translation.id) ?? '',
      folderId: published.article.folderId ?? undefined,
      updatedAt: toIso(shown.translation.updatedAt),
      locales: [...published.translations.keys()].sort(),
    };
  }

  async folders(orgId: string, request: PublicFoldersRequest): Promise<PublicFolderList> {
    const reader = new ReaderLocales(request.locale, request.fallbackLocale);
    const help = await publishedHelpOf(this.dataSource, orgId);
    const counts = subtreeCounts(
      help.folders,
      shownArticles(help.articles, reader).map(({ published }) => published.article.folderId),
    );
    return {
      data: treeOrder(help.folders)
        .filter(({ folder }) => counts.has(folder.id))
        .map(({ folder }) => ({
          id: folder.id,
          parentId: folder.parentId ?? undefined,
          name: folder.name,
          articleCount: counts.get(folder.id) ?? 0,
        })),
    };
  }

  async news(orgId: string, request: PublicNewsRequest): Promise<PublicNewsPage> {
    const page = offsetPageOf(request.page);
    const reader = new ReaderLocales(request.locale, request.fallbackLocale);
    const [posts, total] = await this.dataSource.getRepository(NewsPostRow).findAndCount({
      where: { orgId, status: NewsPostStatus.PUBLISHED },
      order: { publishedAt: 'DESC', id: 'DESC' },
      skip: page.offset,
      take: page.limit,
    });
    const postIds = posts.map((post) => post.id);
    const translations = postIds.length
      ? await this.dataSource.getRepository(NewsPostTranslationRow).findBy({ orgId, postId: In(postIds) })
      : [];
    const categories = await this.terms(orgId, postIds, 'category');
    const tags = await this.terms(orgId, postIds, 'tag');
    return {
      data: posts.flatMap((post) => {
        const own = new Map(translations.filter((t) => t.postId === post.id).map((t) => [t.locale, t]));
        const locale = reader.pick(new Set(own.keys()), post.defaultLocale);
        const translation = locale ? own.get(locale) : undefined;
        if (!translation) return [];
        return [
          {
            id: post.id,
            locale: translation.locale,
            title: translation.title,
            bodyHtml: translation.bodyHtml,
            publishedAt: toIso(post.publishedAt ?? post.updatedAt),
            categories: categories.get(post.id) ?? [],
            tags: tags.get(post.id) ?? [],
          },
        ];
      }),
      pageInfo: pageInfoOf(page, total),
    };
  }

  /** The named terms (categories or tags) of each post, by folded name then id. */
  private async terms(
    orgId: string,
    postIds: string[],
    kind: 'category' | 'tag',
  ): Promise<Map<string, PublicNamedTerm[]>> {
    if (!postIds.length) return new Map();
    const [link, term, column] =
      kind === 'category'
        ? [NewsPostCategoryRow, NewsCategoryRow, 'category_id']
        : [NewsPostTagRow, NewsTagRow, 'tag_id'];
    const rows = await this.dataSource
      .createQueryBuilder(link, 'l')
      .innerJoin(term, 'n', `n.id = l.${column} AND n.org_id = l.org_id`)
      .select('l.post_id', 'postId')
      .addSelect('n.id', 'id')
      .addSelect('n.name', 'name')
      .where('l.org_id = :orgId AND l.post_id IN (:...postIds)', { orgId, postIds })
      .orderBy('n.name_key', 'ASC')
      .addOrderBy('n.id', 'ASC')
      .getRawMany<{ postId: string; id: string; name: string }>();
    const result = new Map<string, PublicNamedTerm[]>();
    for (const row of rows) result.set(row.postId, [...(result.get(row.postId) ?? []), { id: row.id, name: row.name }]);
    return result;
  }
}

/** Each article in the locale chosen for the reader; those with no published translation in the chain left out. */
export function shownArticles(articles: PublishedArticle[], reader: ReaderLocales): ShownArticle[] {
  return articles.flatMap((published) => {
    const locale = reader.pick(new Set(published.translations.keys()), published.article.defaultLocale);
    const translation = locale ? published.translations.get(locale) : undefined;
    return translation ? [{ published, translation }] : [];
  });
}
