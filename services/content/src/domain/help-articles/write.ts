import { In, type DataSource, type EntityManager } from 'typeorm';
import {
  Conflict,
  enqueueEvents,
  insertRows,
  isDuplicateKeyError,
  newId,
  now,
  requireOrg,
  requireScope,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { HelpArticleStatus } from '@svc/proto/content/v1/content';
import type {
  CreateHelpArticleRequest,
  CreateHelpArticleTranslationRequest,
  HelpArticle,
  HelpArticleLocaleRequest,
  UpdateHelpArticleRequest,
} from '@svc/proto/content/v1/help_articles';
import { HelpArticleRow, HelpArticleTagRow, HelpArticleTermRow, HelpArticleTranslationRow } from '../../entities';
import { contentEvent, type ContentVerb } from '../events';
import { canonicalLocale, localeOr } from '../locales';
import { renderMarkdown } from '../markdown';
import { findArticle, loadArticle, translationIn } from './read';
import { checkFolder, checkTags } from './references';
import { checkBody, checkTitle } from '../texts';
import { DEFAULT_ARTICLE_LOCALE } from './rules';
import { indexTranslation } from './search-index';
import { checkSlug, freeSlug, slugOf } from './slugs';
import { articleView } from './views';

/** Attempts at a write that lost a race for a slug (or a locale) to a concurrent one; the next attempt sees it. */
const SLUG_RACE_ATTEMPTS = 3;

/** One change: what to answer, and the event it emits (none when it changed nothing). */
interface Change {
  article: HelpArticleRow;
  locale: string;
  verb?: ContentVerb<'help_article'>;
  status?: HelpArticleStatus;
}

/** The slug of a translation: the caller's (CONFLICT when another translation has it) or one from the title. */
async function slugFor(
  manager: EntityManager,
  at: { orgId: string; locale: string; except?: string },
  chosen: string | undefined,
  title: string,
): Promise<string> {
  if (chosen === undefined) return freeSlug(manager, at, slugOf(title));
  const slug = checkSlug(chosen);
  if ((await freeSlug(manager, at, slug)) !== slug)
    throw new Conflict(`another ${at.locale} help article of the org has the slug ${slug}`, { field: 'slug' });
  return slug;
}

async function replaceTags(manager: EntityManager, article: HelpArticleRow, tagIds: string[]): Promise<void> {
  await manager.delete(HelpArticleTagRow, { articleId: article.id });
  await insertRows(
    manager,
    HelpArticleTagRow,
    tagIds.map((tagId) =>
      Object.assign(new HelpArticleTagRow(), { articleId: article.id, tagId, orgId: article.orgId }),
    ),
  );
}

/** The changes CONTENT_MANAGE makes to the org's articles; each emits its event in its own transaction. */
export class HelpArticleWrites {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
  ) {}

  /** The caller's scope is checked before anything in the request is looked at. */
  private async change(
    principal: Principal,
    work: (manager: EntityManager, orgId: string, at: Date) => Promise<Change>,
  ) {
    requireScope(principal, ApiScope.CONTENT_MANAGE);
    const orgId = requireOrg(principal);
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { view, emitted } = await this.dataSource.transaction(async (manager) => {
          const at = now();
          const change = await work(manager, orgId, at);
          if (change.verb)
            await enqueueEvents(
              manager,
              [
                contentEvent({
                  object: 'help_article',
                  verb: change.verb,
                  orgId,
                  id: change.article.id,
                  locale: change.locale,
                  status: change.status,
                }),
              ],
              at,
            );
          return {
            view: articleView(await loadArticle(manager, change.article), change.locale),
            emitted: !!change.verb,
          };
        });
        if (emitted) this.relay().nudge();
        return view;
      } catch (error) {
        if (!isDuplicateKeyError(error) || attempt >= SLUG_RACE_ATTEMPTS) throw error;
      }
    }
  }

  /** A new article and its first translation (DRAFT), in the request's locale (default `en`). */
  create(principal: Principal, input: CreateHelpArticleRequest): Promise<HelpArticle> {
    return this.change(principal, async (manager, orgId, at) => {
      const title = checkTitle(input.title);
      const bodyMarkdown = checkBody(input.bodyMarkdown);
      const locale = localeOr(input.locale, DEFAULT_ARTICLE_LOCALE);
      const folderId = input.folderId === undefined ? null : await checkFolder(manager, orgId, input.folderId);
      const tagIds = await checkTags(manager, orgId, input.tagIds);
      const article = manager.create(HelpArticleRow, {
        id: newId(at),
        orgId,
        folderId,
        authorId: principal.memberId || principal.keyId,
        defaultLocale: locale,
        createdAt: at,
        updatedAt: at,
      });
      await manager.insert(HelpArticleRow, article);
      const status = await this.addTranslation(manager, article, { locale, title, bodyMarkdown, slug: input.slug }, at);
      await replaceTags(manager, article, tagIds);
      return { article, locale, verb: 'created', status };
    });
  }

  /** What the article shares (folder, tags) and/or one translation's text; the slug stays unless one is given. */
  update(principal: Principal, input: UpdateHelpArticleRequest): Promise<HelpArticle> {
    return this.change(principal, async (manager, orgId, at) => {
      const title = input.title === undefined ? undefined : checkTitle(input.title);
      const bodyMarkdown = input.bodyMarkdown === undefined ? undefined : checkBody(input.bodyMarkdown);
      const article = await findArticle(manager, orgId, input.id);
      const locale = localeOr(input.locale, article.defaultLocale);
      const translation = translationIn(await loadArticle(manager, article), locale);
      if (input.clearFolder) article.folderId = null;
      else if (input.folderId !== undefined) article.folderId = await checkFolder(manager, orgId, input.folderId);
      if (input.hasTagIds) await replaceTags(manager, article, await checkTags(manager, orgId, input.tagIds));
      if (input.slug !== undefined)
        translation.slug = await slugFor(manager, { orgId, locale, except: translation.id }, input.slug, '');
      if (title !== undefined) translation.title = title;
      if (bodyMarkdown !== undefined) {
        translation.bodyMarkdown = bodyMarkdown;
        translation.bodyHtml = renderMarkdown(bodyMarkdown);
      }
      translation.updatedAt = at;
      article.updatedAt = at;
      await manager.save(HelpArticleTranslationRow, translation);
      await manager.update(HelpArticleRow, { id: article.id, orgId }, { folderId: article.folderId, updatedAt: at });
      if (title !== undefined || bodyMarkdown !== undefined) await indexTranslation(manager, translation);
      return { article, locale, verb: 'updated', status: translation.status };
    });
  }

  /** A translation in a locale the article has none in (CONFLICT naming `locale` otherwise), DRAFT. */
  createTranslation(principal: Principal, input: CreateHelpArticleTranslationRequest): Promise<HelpArticle> {
    return this.change(principal, async (manager, orgId, at) => {
      const title = checkTitle(input.title);
      const bodyMarkdown = checkBody(input.bodyMarkdown);
      const article = await findArticle(manager, orgId, input.id);
      // After the id: another org's article is NOT_FOUND whatever the locale (the message quotes a bad one).
      const locale = canonicalLocale(input.locale);
      if (await manager.existsBy(HelpArticleTranslationRow, { articleId: article.id, locale }))
        throw new Conflict(`the help article already has a ${locale} translation`, { field: 'locale' });
      const status = await this.addTranslation(manager, article, { locale, title, bodyMarkdown, slug: input.slug }, at);
      article.updatedAt = at;
      await manager.update(HelpArticleRow, { id: article.id, orgId }, { updatedAt: at });
      return { article, locale, verb: 'translation_created', status };
    });
  }

  /** One translation to `status` (docs/decisions/0180); already there: unchanged, no event. */
  setStatus(principal: Principal, request: HelpArticleLocaleRequest, status: HelpArticleStatus): Promise<HelpArticle> {
    return this.change(principal, async (manager, orgId, at) => {
      const article = await findArticle(manager, orgId, request.id);
      const locale = localeOr(request.locale, article.defaultLocale);
      const translation = translationIn(await loadArticle(manager, article), locale);
      if (translation.status === status) return { article, locale };
      const publishedAt = status === HelpArticleStatus.PUBLISHED ? at : null;
      await manager.update(HelpArticleTranslationRow, { id: translation.id }, { status, publishedAt, updatedAt: at });
      article.updatedAt = at;
      await manager.update(HelpArticleRow, { id: article.id, orgId }, { updatedAt: at });
      const verb = status === HelpArticleStatus.PUBLISHED ? 'published' : 'unpublished';
      return { article, locale, verb, status };
    });
  }

  /** The article, its translations, tag links and search terms. */
  async delete(principal: Principal, id: string): Promise<string> {
    requireScope(principal, ApiScope.CONTENT_MANAGE);
    const orgId = requireOrg(principal);
    await this.dataSource.transaction(async (manager) => {
      const article = await findArticle(manager, orgId, id);
      const translations = await manager.find(HelpArticleTranslationRow, {
        select: { id: true },
        where: { articleId: article.id },
      });
      // By translation: the terms' primary key starts with it (no index on article_id).
      if (translations.length)
        await manager.delete(HelpArticleTermRow, { translationId: In(translations.map((t) => t.id)) });
      await manager.delete(HelpArticleTagRow, { articleId: article.id });
      await manager.delete(HelpArticleTranslationRow, { articleId: article.id });
      await manager.delete(HelpArticleRow, { id: article.id });
      const at = now();
      await enqueueEvents(manager, [contentEvent({ object: 'help_article', verb: 'deleted', orgId, id })], at);
    });
    this.relay().nudge();
    return id;
  }

  private async addTranslation(
    manager: EntityManager,
    article: HelpArticleRow,
    text: { locale: string; title: string; bodyMarkdown: string; slug: string | undefined },
    at: Date,
  ): Promise<HelpArticleStatus> {
    const { locale, title, bodyMarkdown } = text;
    const translation = manager.create(HelpArticleTranslationRow, {
      id: newId(at),
      orgId: article.orgId,
      articleId: article.id,
      locale,
      title,
      slug: await slugFor(manager, { orgId: article.orgId, locale }, text.slug, title),
      bodyMarkdown,
      bodyHtml: renderMarkdown(bodyMarkdown),
      status: HelpArticleStatus.DRAFT,
      publishedAt: null,
      createdAt: at,
      updatedAt: at,
    });
    await manager.insert(HelpArticleTranslationRow, translation);
    await indexTranslation(manager, translation);
    return translation.status;
  }
}
