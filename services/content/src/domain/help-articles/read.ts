import type { DataSource, EntityManager } from 'typeorm';
import { In } from 'typeorm';
import { InvalidArgument, NotFound, isId, requireOrg, requireScope, searchWords, type Principal } from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { HelpArticleStatus } from '@svc/proto/content/v1/content';
import type {
  GetHelpArticleRequest,
  HelpArticle,
  HelpArticlePage,
  ListHelpArticlesRequest,
} from '@svc/proto/content/v1/help_articles';
import { HelpArticleRow, HelpArticleTagRow, HelpArticleTranslationRow } from '../../entities';
import { offsetPageOf, pageInfoOf } from '../page';
import { localeOr } from '../locales';
import { translationTermMatch } from './search-index';
import { articleView, type StoredArticle } from './views';

/** An article of the org, or NOT_FOUND naming the field (the same for another org's: no existence oracle). */
export async function findArticle(
  manager: EntityManager,
  orgId: string,
  id: string,
  field = 'id',
): Promise<HelpArticleRow> {
  if (!isId(id)) throw new InvalidArgument(`${field} must be a 24-character hex id`, { field });
  const row = await manager.findOneBy(HelpArticleRow, { id, orgId });
  if (!row) throw new NotFound(`${field} names no help article of this org`, { field });
  return row;
}

/** The translation of `locale`, or NOT_FOUND naming the field. */
export function translationIn(stored: StoredArticle, locale: string, field = 'locale'): HelpArticleTranslationRow {
  const found = stored.translations.find((translation) => translation.locale === locale);
  if (!found) throw new NotFound(`the help article has no ${locale} translation`, { field });
  return found;
}

/** Articles with their translations (the default locale first, then by locale) and tags, in the order given. */
export async function loadArticles(manager: EntityManager, articles: HelpArticleRow[]): Promise<StoredArticle[]> {
  if (!articles.length) return [];
  const ids = articles.map((article) => article.id);
  const [translations, tags] = await Promise.all([
    manager.find(HelpArticleTranslationRow, { where: { articleId: In(ids) }, order: { locale: 'ASC' } }),
    manager.find(HelpArticleTagRow, { where: { articleId: In(ids) }, order: { tagId: 'ASC' } }),
  ]);
  return articles.map((article) => ({
    article,
    translations: translations
      .filter((translation) => translation.articleId === article.id)
      .sort((x, y) => Number(y.locale === article.defaultLocale) - Number(x.locale === article.defaultLocale)),
    tagIds: tags.filter((tag) => tag.articleId === article.id).map((tag) => tag.tagId),
  }));
}

export async function loadArticle(manager: EntityManager, article: HelpArticleRow): Promise<StoredArticle> {
  const [stored] = await loadArticles(manager, [article]);
  if (!stored) throw new Error(`article ${article.id} vanished`);
  return stored;
}

function checkStatus(status: HelpArticleStatus): HelpArticleStatus {
  if (status !== HelpArticleStatus.DRAFT && status !== HelpArticleStatus.PUBLISHED)
    throw new InvalidArgument('status must be DRAFT or PUBLISHED', { field: 'status' });
  return status;
}

function checkFilterId(value: string, field: string): string {
  if (!isId(value)) throw new InvalidArgument(`${field} must be a 24-character hex id`, { field });
  return value;
}

/** What CONTENT_READ shows of the org's articles (docs/decisions/0186). */
export class HelpArticleReads {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Newest first, then by id (pages never skip or repeat). Every filter applies to one translation of each article:
   * the one in `locale`, else the default-locale one, which is also the article's `current`.
   */
  async list(principal: Principal, request: ListHelpArticlesRequest): Promise<HelpArticlePage> {
    requireScope(principal, ApiScope.CONTENT_READ);
    const orgId = requireOrg(principal);
    const page = offsetPageOf(request.page);
    const locale = localeOr(request.locale, undefined);
    const manager = this.dataSource.manager;
    const query = manager
      .createQueryBuilder(HelpArticleRow, 'a')
      .innerJoin(
        HelpArticleTranslationRow,
        't',
        `t.article_id = a.id AND t.org_id = a.org_id AND ${locale ? 't.locale = :locale' : 't.locale = a.default_locale'}`,
        { locale },
      )
      .where('a.org_id = :orgId', { orgId });
    if (request.folderId !== undefined)
      query.andWhere('a.folder_id = :folderId', { folderId: checkFilterId(request.folderId, 'folderId') });
    if (request.tagId !== undefined)
      query.andWhere(
        'a.id IN (SELECT g.article_id FROM help_article_tags g WHERE g.org_id = :orgId AND g.tag_id = :tagId)',
        { tagId: checkFilterId(request.tagId, 'tagId') },
      );
    if (request.status !== undefined) query.andWhere('t.status = :status', { status: checkStatus(request.status) });
    if (request.query !== undefined) {
      const match = translationTermMatch('t', searchWords(request.query));
      query.andWhere(match.sql, match.parameters);
    }
    const totalCount = await query.getCount();
    const ids = await query
      .clone()
      .select('a.id', 'id')
      .orderBy('a.created_at', 'DESC')
      .addOrderBy('a.id', 'DESC')
      .offset(page.offset)
      .limit(page.limit)
      .getRawMany<{ id: string }>();
    const rows = ids.length ? await manager.findBy(HelpArticleRow, { id: In(ids.map((row) => row.id)) }) : [];
    const ordered = ids.flatMap(({ id }) => rows.filter((row) => row.id === id));
    const stored = await loadArticles(manager, ordered);
    return {
      data: stored.map((article) => articleView(article, locale ?? article.article.defaultLocale)),
      pageInfo: pageInfoOf(page, totalCount),
    };
  }

  async get(principal: Principal, request: GetHelpArticleRequest): Promise<HelpArticle> {
    requireScope(principal, ApiScope.CONTENT_READ);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    const stored = await loadArticle(manager, await findArticle(manager, orgId, request.id));
    const locale = localeOr(request.locale, stored.article.defaultLocale);
    translationIn(stored, locale);
    return articleView(stored, locale);
  }
}
