import { expect } from 'chai';
import { ApiScope, eventually, newId } from '@svc/kit';
import { type StackHarness, type TestOrg } from '../support/stack-harness';
import { sharedStack } from '../support/shared-stack';
import { ContentFixtures } from '../support/content';
import { dataOf, expectError, expectField, refusalOf } from './inbox-fixtures';

interface Translation {
  locale: string;
  title: string;
  bodyMarkdown: string;
  bodyHtml: string;
}

interface Post extends Translation {
  id: string;
  status: string;
  scheduledAt: string | null;
  publishedAt: string | null;
  archivedAt: string | null;
  defaultLocale: string;
  categoryIds: string[];
  tagIds: string[];
  authorId: string;
  createdAt: string;
  updatedAt: string;
  translations: Translation[];
}

interface Page {
  data: Post[];
  totalCount: number;
  hasMore: boolean;
}

const POST = `id status scheduledAt publishedAt archivedAt defaultLocale locale title bodyMarkdown bodyHtml categoryIds
  tagIds authorId createdAt updatedAt translations { locale title bodyMarkdown bodyHtml }`;
const LIST = `query($limit: Int, $offset: Int, $status: NewsPostStatus, $categoryId: String, $tagId: String, $locale: String) {
  newsPosts(limit: $limit, offset: $offset, status: $status, categoryId: $categoryId, tagId: $tagId, locale: $locale) {
    data { ${POST} } totalCount hasMore } }`;
const GET = `query($id: String!, $locale: String) { newsPost(id: $id, locale: $locale) { ${POST} } }`;
const CREATE = `mutation($i: CreateNewsPostInput!) { createNewsPost(input: $i) { ${POST} } }`;
const UPDATE = `mutation($id: String!, $i: UpdateNewsPostInput!) { updateNewsPost(id: $id, input: $i) { ${POST} } }`;
const TRANSLATE = `mutation($id: String!, $i: CreateNewsPostTranslationInput!) {
  createNewsPostTranslation(id: $id, input: $i) { ${POST} } }`;
const SCHEDULE = `mutation($id: String!, $at: DateTime!) { scheduleNewsPost(id: $id, at: $at) { ${POST} } }`;
const DELETE = 'mutation($id: String!) { deleteNewsPost(id: $id) { id } }';
const MOVE = (operation: string) => `mutation($id: String!) { ${operation}(id: $id) { ${POST} } }`;

type Move = 'publish' | 'schedule' | 'unpublish' | 'archive';
const MOVES: Move[] = ['publish', 'schedule', 'unpublish', 'archive'];
const STATES = ['DRAFT', 'SCHEDULED', 'PUBLISHED', 'ARCHIVED'] as const;

/** Decision 0190's table: the state each move leads to from each state (absent: refused; the same: unchanged). */
const TRANSITIONS: Record<(typeof STATES)[number], Partial<Record<Move, string>>> = {
  DRAFT: { publish: 'PUBLISHED', schedule: 'SCHEDULED', unpublish: 'DRAFT', archive: 'ARCHIVED' },
  SCHEDULED: { publish: 'PUBLISHED', schedule: 'SCHEDULED', unpublish: 'DRAFT', archive: 'ARCHIVED' },
  PUBLISHED: { publish: 'PUBLISHED', unpublish: 'DRAFT', archive: 'ARCHIVED' },
  ARCHIVED: { publish: 'PUBLISHED', schedule: 'SCHEDULED', archive: 'ARCHIVED' },
};

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

describe('News posts (whole stack over HTTP)', function () {
  let harness: StackHarness;
  let org: TestOrg;
  let other: TestOrg;
  /** CONTENT_READ and CONTENT_MANAGE. */
  let key: string;
  let otherKey: string;

  const call = <T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    harness.graphql<T>(query, variables, as);
  const gql = <T>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    call<T>(query, variables, as).then(dataOf);
  const create = async (input: Record<string, unknown> = {}, as = key) =>
    (await gql<{ createNewsPost: Post }>(CREATE, { i: { title: 'Hello', bodyMarkdown: 'Hi', ...input } }, as))
      .createNewsPost;
  const get = async (id: string, locale?: string, as = key) =>
    (await gql<{ newsPost: Post }>(GET, { id, locale }, as)).newsPost;
  const list = async (variables: Record<string, unknown>, as = key) =>
    (await gql<{ newsPosts: Page }>(LIST, variables, as)).newsPosts;
  const move = (id: string, to: Move, as = key) =>
    to === 'schedule'
      ? call<Record<string, Post>>(SCHEDULE, { id, at: inAnHour() }, as)
      : call<Record<string, Post>>(MOVE(`${to}NewsPost`), { id }, as);
  /** A news category or tag of the owner's org, made through its own operation. */
  const term = (owner: TestOrg, kind: 'NewsCategory' | 'NewsTag') =>
    new ContentFixtures(harness, owner.sessionToken).term(kind, `${kind} ${newId().slice(-6)}`);

  before(async function () {
    this.timeout(120_000);
    harness = await sharedStack();
    org = await harness.newOrg('News');
    other = await harness.newOrg('Other news');
    key = (await org.mintKey([ApiScope.CONTENT_READ, ApiScope.CONTENT_MANAGE])).key;
    otherKey = (await other.mintKey([ApiScope.CONTENT_READ, ApiScope.CONTENT_MANAGE])).key;
  });

  describe('writing', () => {
    it('creates a DRAFT post with its text rendered, its categories and tags, and reads it back', async () => {
      const category = await term(org, 'NewsCategory');
      const tag = await term(org, 'NewsTag');
      const keyId = (await org.mintKey([ApiScope.CONTENT_MANAGE, ApiScope.CONTENT_READ], 'author')).key;
      const created = await create(
        {
          title: '  Launch  ',
          bodyMarkdown: '# New\n\n**bold** <script>alert(1)</script>',
          categoryIds: [category],
          tagIds: [tag],
        },
        keyId,
      );
      expect(created).to.deep.include({
        status: 'DRAFT',
        title: 'Launch',
        locale: 'en',
        defaultLocale: 'en',
        categoryIds: [category],
        tagIds: [tag],
        scheduledAt: null,
        publishedAt: null,
        archivedAt: null,
      });
      expect(created.bodyHtml).to.contain('<h1>New</h1>').and.contain('<strong>bold</strong>');
      expect(created.bodyHtml).not.to.contain('<script');
      expect(created.authorId).to.match(/^[0-9a-f]{24}$/);
      expect(await get(created.id)).to.deep.equal(created);
    });

    it('updates a translation, the categories and the tags; an empty list removes them', async () => {
      const [first, second] = [await term(org, 'NewsCategory'), await term(org, 'NewsCategory')];
      const post = await create({ categoryIds: [first] });
      const updated = (
        await gql<{ updateNewsPost: Post }>(UPDATE, {
          id: post.id,
          i: { title: 'Renamed', bodyMarkdown: '_new_', categoryIds: [second, second] },
        })
      ).updateNewsPost;
      expect(updated).to.deep.include({ title: 'Renamed', bodyMarkdown: '_new_', categoryIds: [second] });
      expect(updated.bodyHtml).to.contain('<em>new</em>');
      const kept = (await gql<{ updateNewsPost: Post }>(UPDATE, { id: post.id, i: { tagIds: [] } })).updateNewsPost;
      expect(kept).to.deep.include({ title: 'Renamed', categoryIds: [second], tagIds: [] });
      const cleared = (await gql<{ updateNewsPost: Post }>(UPDATE, { id: post.id, i: { categoryIds: [] } }))
        .updateNewsPost;
      expect(cleared.categoryIds).to.deep.equal([]);
    });

    it('adds translations per locale, shows the one asked for with fallback, and can make one the default', async () => {
      const post = await create({ title: 'Hello', locale: 'en-us' });
      expect(post.defaultLocale).to.equal('en-US');
      const translated = (
        await gql<{ createNewsPostTranslation: Post }>(TRANSLATE, {
          id: post.id,
          i: { locale: 'pt-br', title: 'Olá', bodyMarkdown: 'Oi' },
        })
      ).createNewsPostTranslation;
      expect(translated.translations.map((t) => t.locale)).to.deep.equal(['en-US', 'pt-BR']);
      expect(await get(post.id, 'pt-BR')).to.deep.include({ locale: 'pt-BR', title: 'Olá' });
      expect(await get(post.id, 'pt-BR-x-formal')).to.deep.include({ locale: 'pt-BR', title: 'Olá' });
      expect(await get(post.id, 'de')).to.deep.include({ locale: 'en-US', title: 'Hello' });
      const edited = (
        await gql<{ updateNewsPost: Post }>(UPDATE, { id: post.id, i: { locale: 'pt-BR', title: 'Olá!' } })
      ).updateNewsPost;
      expect(edited).to.deep.include({ locale: 'pt-BR', title: 'Olá!' });
      const rebased = (await gql<{ updateNewsPost: Post }>(UPDATE, { id: post.id, i: { defaultLocale: 'pt-BR' } }))
        .updateNewsPost;
      expect(rebased).to.deep.include({ defaultLocale: 'pt-BR', locale: 'pt-BR' });
      expect(rebased.translations.map((t) => t.locale)).to.deep.equal(['pt-BR', 'en-US']);
    });

    it('deletes a post in any state: it is gone from reads and lists', async () => {
      const post = await create();
      dataOf(await move(post.id, 'publish'));
      expect((await gql<{ deleteNewsPost: { id: string } }>(DELETE, { id: post.id })).deleteNewsPost.id).to.equal(
        post.id,
      );
      expectError(await call(GET, { id: post.id }), 200, 'NOT_FOUND');
      expectError(await call(DELETE, { id: post.id }), 200, 'NOT_FOUND');
      expect((await list({ limit: 100 })).data.map((p) => p.id)).not.to.include(post.id);
    });
  });

  describe('states', () => {
    /** A fresh post in `state`. */
    async function postIn(state: (typeof STATES)[number]): Promise<Post> {
      const post = await create();
      if (state === 'SCHEDULED') dataOf(await move(post.id, 'schedule'));
      if (state === 'PUBLISHED') dataOf(await move(post.id, 'publish'));
      if (state === 'ARCHIVED') dataOf(await move(post.id, 'archive'));
      return get(post.id);
    }

    for (const state of STATES)
      for (const to of MOVES) {
        const expected = TRANSITIONS[state][to];
        it(`${to} from ${state}: ${expected ?? 'refused (FAILED_PRECONDITION naming the state)'}`, async () => {
          const post = await postIn(state);
          const response = await move(post.id, to);
          if (!expected) {
            expectError(response, 200, 'FAILED_PRECONDITION');
            expect(response.body.errors?.[0]?.message).to.contain(state);
            expect((await get(post.id)).status).to.equal(state);
            return;
          }
          const after = dataOf(response)[`${to}NewsPost`] as Post;
          if (expected === state && to !== 'schedule') return void expect(after).to.deep.equal(post);
          expect(after.status).to.equal(expected);
          expect(after.scheduledAt !== null).to.equal(expected === 'SCHEDULED');
          expect(after.archivedAt !== null).to.equal(expected === 'ARCHIVED');
          if (expected === 'PUBLISHED') expect(after.publishedAt).to.equal(after.updatedAt);
          else expect(after.publishedAt).to.equal(post.publishedAt);
        });
      }

    it('publishes a scheduled post by itself at its time', async function () {
      this.timeout(30_000);
      const post = await create();
      const at = new Date(Date.now() + 2_000).toISOString();
      const scheduled = (await gql<{ scheduleNewsPost: Post }>(SCHEDULE, { id: post.id, at })).scheduleNewsPost;
      expect(scheduled).to.deep.include({ status: 'SCHEDULED', scheduledAt: at });
      const published = await eventually(
        async () => {
          const now = await get(post.id);
          return now.status === 'PUBLISHED' && now;
        },
        20_000,
        'the scheduled post published',
      );
      expect(published).to.deep.include({ scheduledAt: null, publishedAt: at });
    });

    it('refuses a time that is not in the future, naming `at`', async () => {
      const post = await create();
      const past = new Date(Date.now() - 60_000).toISOString();
      expectField(await call(SCHEDULE, { id: post.id, at: past }), 'BAD_USER_INPUT', 'at');
      expect((await get(post.id)).status).to.equal('DRAFT');
    });
  });

  describe('reading', () => {
    it('pages through every post once, newest first, with limits 1 to 3', async () => {
      const fresh = await harness.newOrg('Paging');
      const pagingKey = (await fresh.mintKey([ApiScope.CONTENT_READ, ApiScope.CONTENT_MANAGE])).key;
      const created: string[] = [];
      for (let n = 0; n < 7; n += 1) created.push((await create({ title: `Post ${n}` }, pagingKey)).id);
      for (const limit of [1, 2, 3]) {
        const seen: string[] = [];
        for (let offset = 0; ; offset += limit) {
          const page = await list({ limit, offset }, pagingKey);
          expect(page.totalCount).to.equal(7);
          seen.push(...page.data.map((p) => p.id));
          expect(page.hasMore).to.equal(offset + limit < 7);
          if (!page.hasMore) break;
        }
        expect(seen).to.deep.equal([...created].reverse());
      }
    });

    it('filters by status, category, tag and locale', async () => {
      const category = await term(org, 'NewsCategory');
      const tag = await term(org, 'NewsTag');
      const inCategory = await create({ categoryIds: [category] });
      const tagged = await create({ tagIds: [tag] });
      dataOf(await move(tagged.id, 'publish'));
      const french = await create({ title: 'Bonjour', locale: 'fr' });
      expect((await list({ categoryId: category })).data.map((p) => p.id)).to.deep.equal([inCategory.id]);
      expect((await list({ tagId: tag })).data.map((p) => p.id)).to.deep.equal([tagged.id]);
      const published = await list({ status: 'PUBLISHED', limit: 100 });
      expect(published.data.every((p) => p.status === 'PUBLISHED')).to.equal(true);
      expect(published.data.map((p) => p.id)).to.include(tagged.id);
      const inFrench = await list({ locale: 'FR', limit: 100 });
      expect(inFrench.data.map((p) => [p.id, p.locale])).to.deep.equal([[french.id, 'fr']]);
    });
  });

  describe('refusals', () => {
    it('refuses bad input naming the field', async () => {
      expectField(await call(CREATE, { i: { title: ' ', bodyMarkdown: '' } }), 'BAD_USER_INPUT', 'title');
      expectField(await call(CREATE, { i: { title: 'x'.repeat(301), bodyMarkdown: '' } }), 'BAD_USER_INPUT', 'title');
      expectField(
        await call(CREATE, { i: { title: 'T', bodyMarkdown: '', locale: 'not a locale' } }),
        'BAD_USER_INPUT',
        'locale',
      );
      expectField(await call(LIST, { limit: 0 }), 'BAD_USER_INPUT', 'limit');
      expectField(await call(LIST, { limit: 101 }), 'BAD_USER_INPUT', 'limit');
      expectField(await call(LIST, { offset: -1 }), 'BAD_USER_INPUT', 'offset');
      const post = await create();
      expectField(
        await call(TRANSLATE, { id: post.id, i: { locale: 'EN', title: 'Again', bodyMarkdown: '' } }),
        'CONFLICT',
        'locale',
      );
      expectField(await call(UPDATE, { id: post.id, i: { locale: 'de', title: 'Hallo' } }), 'NOT_FOUND', 'locale');
      expectField(
        await call(UPDATE, { id: post.id, i: { defaultLocale: 'de' } }),
        'FAILED_PRECONDITION',
        'defaultLocale',
      );
      expectField(await call(CREATE, { i: { title: 'T', bodyMarkdown: '', tagIds: ['nope'] } }), 'NOT_FOUND', 'tagIds');
    });

    it('refuses a key without the scope, naming it', async () => {
      const reader = (await org.mintKey([ApiScope.CONTENT_READ], 'reader')).key;
      const none = (await org.mintKey([ApiScope.CONTACTS_READ], 'none')).key;
      const post = await create();
      dataOf(await call(GET, { id: post.id }, reader));
      for (const response of [
        await call(CREATE, { i: { title: 'T', bodyMarkdown: '' } }, reader),
        await move(post.id, 'publish', reader),
        await call(DELETE, { id: post.id }, reader),
      ]) {
        expectError(response, 403, 'FORBIDDEN');
        expect(response.body.errors?.[0]?.extensions?.scope).to.equal('CONTENT_MANAGE');
      }
      const read = await call(LIST, {}, none);
      expectError(read, 403, 'FORBIDDEN');
      expect(read.body.errors?.[0]?.extensions?.scope).to.equal('CONTENT_READ');
      expect((await get(post.id)).status).to.equal('DRAFT');
    });

    it('answers another org’s post, category and tag exactly like unknown ones, and changes nothing', async () => {
      const post = await create();
      const category = await term(org, 'NewsCategory');
      const tag = await term(org, 'NewsTag');
      const unknown = newId();
      const same = async (query: string, variables: (id: string) => Record<string, unknown>) => {
        const theirs = refusalOf(await call(query, variables(post.id), otherKey), post.id);
        expect(theirs.code).to.equal('NOT_FOUND');
        expect(theirs).to.deep.equal(refusalOf(await call(query, variables(unknown), otherKey), unknown));
      };
      await same(GET, (id) => ({ id }));
      await same(UPDATE, (id) => ({ id, i: { title: 'Mine' } }));
      await same(TRANSLATE, (id) => ({ id, i: { locale: 'de', title: 'Meins', bodyMarkdown: '' } }));
      for (const to of ['publishNewsPost', 'unpublishNewsPost', 'archiveNewsPost', 'deleteNewsPost'])
        await same(to === 'deleteNewsPost' ? DELETE : MOVE(to), (id) => ({ id }));
      await same(SCHEDULE, (id) => ({ id, at: inAnHour() }));
      for (const [field, id] of [
        ['categoryIds', category],
        ['tagIds', tag],
      ] as const) {
        const theirs = refusalOf(
          await call(CREATE, { i: { title: 'T', bodyMarkdown: '', [field]: [id] } }, otherKey),
          id,
        );
        expect(theirs).to.deep.include({ code: 'NOT_FOUND', field });
        expect(theirs).to.deep.equal(
          refusalOf(await call(CREATE, { i: { title: 'T', bodyMarkdown: '', [field]: [unknown] } }, otherKey), unknown),
        );
      }
      expectField(await call(LIST, { categoryId: category }, otherKey), 'NOT_FOUND', 'categoryId');
      expect((await list({ limit: 100 }, otherKey)).data.map((p) => p.id)).not.to.include(post.id);
      expect(await get(post.id)).to.deep.equal(post);
    });
  });
});
