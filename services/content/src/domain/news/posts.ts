import { In, type DataSource, type EntityManager } from 'typeorm';
import {
  Conflict,
  FailedPrecondition,
  InvalidArgument,
  NotFound,
  enqueueEvents,
  isDuplicateKeyError,
  isId,
  newId,
  now,
  requireOrg,
  requireScope,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { NewsPostState_Status as NewsPostStatus } from '@svc/proto/content/v1/content';
import type {
  CreateNewsPostRequest,
  CreateNewsPostTranslationRequest,
  ListNewsPostsRequest,
  UpdateNewsPostRequest,
} from '@svc/proto/content/v1/news_posts';
import { NewsPostCategoryRow, NewsPostRow, NewsPostTagRow, NewsPostTranslationRow } from '../../entities';
import { contentEvent, type ContentVerb } from '../events';
import { canonicalLocale, localeOr } from '../locales';
import { checkBody, checkTitle } from '../texts';
import { renderMarkdown } from '../markdown';
import { offsetPageOf, type OffsetPage } from '../page';
import { orgTermIds } from './references';
import { MOVE_VERB, alreadyThere, moved, type NewsPostMove } from './states';
import type { StoredNewsPost } from './views';

/** A post's locale when its creator names none. */
export const DEFAULT_NEWS_LOCALE = 'en';

/** The time a post is scheduled for: ISO-8601, strictly after `at`; else BAD_USER_INPUT naming `at`. */
export function scheduleTimeOf(value: string, at: Date): Date {
  const time = new Date(value);
  if (!value || Number.isNaN(time.getTime()))
    throw new InvalidArgument('at must be an ISO-8601 date and time', { field: 'at' });
  if (time.getTime() <= at.getTime()) throw new InvalidArgument('at must be in the future', { field: 'at' });
  return time;
}

/** A post of the org, or NOT_FOUND: the same for another org's id, an unknown one and a malformed one. */
async function findPost(manager: EntityManager, orgId: string, id: string): Promise<NewsPostRow> {
  const post = isId(id) ? await manager.findOneBy(NewsPostRow, { id, orgId }) : null;
  if (!post) throw new NotFound('id names no news post of this org', { field: 'id' });
  return post;
}

/** The posts with their translations, categories and tags, in the order given (three reads for any number). */
async function loadPosts(manager: EntityManager, posts: NewsPostRow[]): Promise<StoredNewsPost[]> {
  if (!posts.length) return [];
  const postId = In(posts.map((post) => post.id));
  const orgId = posts[0]?.orgId ?? '';
  const [translations, categories, tags] = await Promise.all([
    manager.findBy(NewsPostTranslationRow, { orgId, postId }),
    manager.findBy(NewsPostCategoryRow, { orgId, postId }),
    manager.findBy(NewsPostTagRow, { orgId, postId }),
  ]);
  return posts.map((post) => ({
    post,
    translations: translations.filter((t) => t.postId === post.id),
    categoryIds: categories.filter((c) => c.postId === post.id).map((c) => c.categoryId),
    tagIds: tags.filter((t) => t.postId === post.id).map((t) => t.tagId),
  }));
}

async function loadPost(manager: EntityManager, post: NewsPostRow): Promise<StoredNewsPost> {
  const [stored] = await loadPosts(manager, [post]);
  if (!stored) throw new Error('unreachable: a post loads itself');
  return stored;
}

/** Replaces the post's categories (or tags) with `ids`, already checked as the org's. */
async function replaceTerms(
  manager: EntityManager,
  post: NewsPostRow,
  kind: 'categories' | 'tags',
  ids: string[],
): Promise<void> {
  const where = { orgId: post.orgId, postId: post.id };
  if (kind === 'categories') {
    await manager.delete(NewsPostCategoryRow, where);
    if (ids.length)
      await manager.insert(
        NewsPostCategoryRow,
        ids.map((categoryId) => ({ ...where, categoryId })),
      );
  } else {
    await manager.delete(NewsPostTagRow, where);
    if (ids.length)
      await manager.insert(
        NewsPostTagRow,
        ids.map((tagId) => ({ ...where, tagId })),
      );
  }
}

function translationRow(post: NewsPostRow, locale: string, title: string, body: string, at: Date) {
  return {
    id: newId(at),
    orgId: post.orgId,
    postId: post.id,
    locale,
    title: checkTitle(title),
    bodyMarkdown: checkBody(body),
    bodyHtml: renderMarkdown(checkBody(body)),
    createdAt: at,
    updatedAt: at,
  } satisfies NewsPostTranslationRow;
}

export interface NewsPostPageResult {
  posts: StoredNewsPost[];
  page: OffsetPage;
  totalCount: number;
  /** The locale the list was filtered by, in which its posts are shown. */
  locale: string | undefined;
}

/**
 * News posts of an org (docs/decisions/0190, 0192): their text per locale, categories and tags, and their state.
 * Every write runs in one transaction with its `news_post.*` event (outbox), then nudges the relay.
 */
export class NewsPosts {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    /** Told when a post is scheduled, so the scheduler can wake at its time. */
    private readonly onScheduled: (at: Date) => void = () => undefined,
    /** The time writes are stamped with and schedules checked against (the scheduler's: tests move both). */
    private readonly clock: () => Date = now,
  ) {}

  async list(principal: Principal, request: ListNewsPostsRequest): Promise<NewsPostPageResult> {
    requireScope(principal, ApiScope.CONTENT_READ);
    const orgId = requireOrg(principal);
    const page = offsetPageOf(request.page);
    const locale = localeOr(request.locale, undefined);
    const manager = this.dataSource.manager;
    const query = manager.createQueryBuilder(NewsPostRow, 'post').where('post.orgId = :orgId', { orgId });
    const status = request.status;
    if (status !== undefined && status !== NewsPostStatus.STATUS_UNSPECIFIED)
      query.andWhere('post.status = :status', { status });
    if (request.categoryId !== undefined) {
      const [categoryId] = await orgTermIds(manager, orgId, [request.categoryId], 'categoryId');
      query.andWhere(
        'EXISTS (SELECT 1 FROM news_post_categories c WHERE c.post_id = post.id AND c.org_id = :orgId AND c.category_id = :categoryId)',
        { categoryId },
      );
    }
    if (request.tagId !== undefined) {
      const [tagId] = await orgTermIds(manager, orgId, [request.tagId], 'tagId');
      query.andWhere(
        'EXISTS (SELECT 1 FROM news_post_tags t WHERE t.post_id = post.id AND t.org_id = :orgId AND t.tag_id = :tagId)',
        { tagId },
      );
    }
    if (locale !== undefined)
      query.andWhere(
        'EXISTS (SELECT 1 FROM news_post_translations l WHERE l.post_id = post.id AND l.org_id = :orgId AND l.locale = :locale)',
        { locale },
      );
    const totalCount = await query.getCount();
    const rows = await query
      .orderBy('post.createdAt', 'DESC')
      .addOrderBy('post.id', 'DESC')
      .offset(page.offset)
      .limit(page.limit)
      .getMany();
    return { posts: await loadPosts(manager, rows), page, totalCount, locale };
  }

  async get(principal: Principal, id: string): Promise<StoredNewsPost> {
    requireScope(principal, ApiScope.CONTENT_READ);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    return loadPost(manager, await findPost(manager, orgId, id));
  }

  async create(principal: Principal, input: CreateNewsPostRequest): Promise<StoredNewsPost> {
    requireScope(principal, ApiScope.CONTENT_MANAGE);
    const orgId = requireOrg(principal);
    const locale = localeOr(input.locale, DEFAULT_NEWS_LOCALE);
    checkTitle(input.title);
    checkBody(input.bodyMarkdown);
    return this.write(async (manager, at) => {
      const categoryIds = await orgTermIds(manager, orgId, input.categoryIds, 'categoryIds');
      const tagIds = await orgTermIds(manager, orgId, input.tagIds, 'tagIds');
      const post: NewsPostRow = {
        id: newId(at),
        orgId,
        authorId: principal.memberId || principal.keyId,
        defaultLocale: locale,
        status: NewsPostStatus.DRAFT,
        scheduledAt: null,
        publishedAt: null,
        archivedAt: null,
        createdAt: at,
        updatedAt: at,
      };
      await manager.insert(NewsPostRow, post);
      await manager.insert(NewsPostTranslationRow, translationRow(post, locale, input.title, input.bodyMarkdown, at));
      await replaceTerms(manager, post, 'categories', categoryIds);
      await replaceTerms(manager, post, 'tags', tagIds);
      return { post, verb: 'created', locale };
    });
  }

  async update(principal: Principal, input: UpdateNewsPostRequest): Promise<StoredNewsPost> {
    requireScope(principal, ApiScope.CONTENT_MANAGE);
    const orgId = requireOrg(principal);
    return this.write(async (manager, at) => {
      const post = await findPost(manager, orgId, input.id);
      const locale = localeOr(input.locale, post.defaultLocale);
      if (input.title !== undefined || input.bodyMarkdown !== undefined) {
        const translation = await manager.findOneBy(NewsPostTranslationRow, { orgId, postId: post.id, locale });
        if (!translation)
          throw new NotFound(`the post has no ${locale} translation (createNewsPostTranslation adds one)`, {
            field: 'locale',
          });
        const body = input.bodyMarkdown === undefined ? undefined : checkBody(input.bodyMarkdown);
        await manager.update(
          NewsPostTranslationRow,
          { id: translation.id, orgId },
          {
            ...(input.title === undefined ? {} : { title: checkTitle(input.title) }),
            ...(body === undefined ? {} : { bodyMarkdown: body, bodyHtml: renderMarkdown(body) }),
            updatedAt: at,
          },
        );
      }
      if (input.hasCategoryIds)
        await replaceTerms(
          manager,
          post,
          'categories',
          await orgTermIds(manager, orgId, input.categoryIds, 'categoryIds'),
        );
      if (input.hasTagIds)
        await replaceTerms(manager, post, 'tags', await orgTermIds(manager, orgId, input.tagIds, 'tagIds'));
      if (input.defaultLocale !== undefined) {
        const defaultLocale = canonicalLocale(input.defaultLocale, 'defaultLocale');
        if (!(await manager.existsBy(NewsPostTranslationRow, { orgId, postId: post.id, locale: defaultLocale })))
          throw new FailedPrecondition(`the post has no ${defaultLocale} translation to make its default`, {
            field: 'defaultLocale',
          });
        post.defaultLocale = defaultLocale;
      }
      post.updatedAt = at;
      await manager.update(NewsPostRow, { id: post.id, orgId }, { defaultLocale: post.defaultLocale, updatedAt: at });
      return { post, verb: 'updated', locale };
    });
  }

  async createTranslation(principal: Principal, input: CreateNewsPostTranslationRequest): Promise<StoredNewsPost> {
    requireScope(principal, ApiScope.CONTENT_MANAGE);
    const orgId = requireOrg(principal);
    return this.write(async (manager, at) => {
      const post = await findPost(manager, orgId, input.id);
      const locale = canonicalLocale(input.locale);
      try {
        await manager.insert(NewsPostTranslationRow, translationRow(post, locale, input.title, input.bodyMarkdown, at));
      } catch (error) {
        if (isDuplicateKeyError(error))
          throw new Conflict(`the post already has a ${locale} translation`, { field: 'locale' });
        throw error;
      }
      post.updatedAt = at;
      await manager.update(NewsPostRow, { id: post.id, orgId }, { updatedAt: at });
      return { post, verb: 'translation_created', locale };
    });
  }

  /** Moves the post's state (docs/decisions/0190); `scheduleAt` for `schedule`, already checked. */
  async move(principal: Principal, id: string, move: NewsPostMove, scheduleAt?: string): Promise<StoredNewsPost> {
    requireScope(principal, ApiScope.CONTENT_MANAGE);
    const orgId = requireOrg(principal);
    const stored = await this.write(async (manager, at) => {
      const post = await findPost(manager, orgId, id);
      const time = move === 'schedule' ? scheduleTimeOf(scheduleAt ?? '', at) : undefined;
      if (alreadyThere(post, move, time)) return { post, verb: undefined, locale: undefined };
      const next = { ...moved(post, move, at, time), updatedAt: at };
      // Only from the state read: a concurrent move (or the scheduler publishing it) meanwhile refuses this one.
      const changed = await manager.update(NewsPostRow, { id: post.id, orgId, status: post.status }, next);
      if (!changed.affected)
        throw new FailedPrecondition('the post changed state meanwhile; read it and try again', { field: 'id' });
      Object.assign(post, next);
      return { post, verb: MOVE_VERB[move], locale: undefined };
    });
    if (stored.post.scheduledAt) this.onScheduled(stored.post.scheduledAt);
    return stored;
  }

  async delete(principal: Principal, id: string): Promise<void> {
    requireScope(principal, ApiScope.CONTENT_MANAGE);
    const orgId = requireOrg(principal);
    await this.dataSource.transaction(async (manager) => {
      const post = await findPost(manager, orgId, id);
      const where = { orgId, postId: post.id };
      await manager.delete(NewsPostCategoryRow, where);
      await manager.delete(NewsPostTagRow, where);
      await manager.delete(NewsPostTranslationRow, where);
      await manager.delete(NewsPostRow, { id: post.id, orgId });
      await enqueueEvents(manager, [contentEvent({ object: 'news_post', verb: 'deleted', orgId, id: post.id })]);
    });
    this.relay().nudge();
  }

  /** One write: the change, its event in the same transaction, the post as it is after; then the relay's nudge. */
  private async write(
    change: (
      manager: EntityManager,
      at: Date,
    ) => Promise<{ post: NewsPostRow; verb: ContentVerb<'news_post'> | undefined; locale: string | undefined }>,
  ): Promise<StoredNewsPost> {
    const { stored, emitted } = await this.dataSource.transaction(async (manager) => {
      const at = this.clock();
      const { post, verb, locale } = await change(manager, at);
      // No verb: the change was a retry that changed nothing, so there is nothing to tell.
      if (verb) {
        const event = contentEvent({
          object: 'news_post',
          verb,
          orgId: post.orgId,
          id: post.id,
          locale,
          status: post.status,
        });
        await enqueueEvents(manager, [event], at);
      }
      return { stored: await loadPost(manager, post), emitted: verb !== undefined };
    });
    if (emitted) this.relay().nudge();
    return stored;
  }
}
