import { expect } from 'chai';
import { ApiScope, eventually, newId } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { type StackHarness, type TestOrg } from '../support/stack-harness';
import { sharedStack } from '../support/shared-stack';
import { ContentFixtures } from '../support/content';
import { dataOf, expectError, expectField, refusalOf } from './inbox-fixtures';

interface Translation {
  locale: string;
  title: string;
  slug: string;
  bodyMarkdown: string;
  bodyHtml: string;
  status: string;
  publishedAt: string | null;
  updatedAt: string;
}

interface Article extends Translation {
  id: string;
  folderId: string | null;
  tagIds: string[];
  authorId: string;
  defaultLocale: string;
  createdAt: string;
  translations: Translation[];
}

interface Page {
  data: Article[];
  totalCount: number;
  hasMore: boolean;
}

const TRANSLATION = 'locale title slug bodyMarkdown bodyHtml status publishedAt updatedAt';
const ARTICLE = `id folderId tagIds authorId defaultLocale createdAt ${TRANSLATION} translations { ${TRANSLATION} }`;
const LIST = `query($limit: Int, $offset: Int, $folderId: String, $tagId: String, $status: HelpArticleStatus, $locale: String, $query: String) {
  helpArticles(limit: $limit, offset: $offset, folderId: $folderId, tagId: $tagId, status: $status, locale: $locale, query: $query) {
    data { ${ARTICLE} } totalCount hasMore } }`;
const GET = `query($id: String!, $locale: String) { helpArticle(id: $id, locale: $locale) { ${ARTICLE} } }`;
const CREATE = `mutation($i: CreateHelpArticleInput!) { createHelpArticle(input: $i) { ${ARTICLE} } }`;
const UPDATE = `mutation($id: String!, $i: UpdateHelpArticleInput!) { updateHelpArticle(id: $id, input: $i) { ${ARTICLE} } }`;
const TRANSLATE = `mutation($id: String!, $i: CreateHelpArticleTranslationInput!) {
  createHelpArticleTranslation(id: $id, input: $i) { ${ARTICLE} } }`;
const PUBLISH = `mutation($id: String!, $locale: String) { publishHelpArticle(id: $id, locale: $locale) { ${ARTICLE} } }`;
const UNPUBLISH = `mutation($id: String!, $locale: String) { unpublishHelpArticle(id: $id, locale: $locale) { ${ARTICLE} } }`;
const DELETE = 'mutation($id: String!) { deleteHelpArticle(id: $id) { id } }';

const READ_MANAGE = [ApiScope.CONTENT_READ, ApiScope.CONTENT_MANAGE];

describe('Help articles (whole stack over HTTP)', function () {
  let harness: StackHarness;
  let org: TestOrg;
  let key: string;
  let other: { org: TestOrg; key: string };

  const call = <T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    harness.graphql<T>(query, variables, as);
  const gql = <T>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    call<T>(query, variables, as).then(dataOf);
  const create = async (input: Record<string, unknown>, as = key) =>
    (await gql<{ createHelpArticle: Article }>(CREATE, { i: { bodyMarkdown: 'Body', ...input } }, as))
      .createHelpArticle;
  const list = async (filters: Record<string, unknown> = {}, as = key) =>
    (await gql<{ helpArticles: Page }>(LIST, filters, as)).helpArticles;
  const get = async (id: string, locale?: string) =>
    (await gql<{ helpArticle: Article }>(GET, { id, locale })).helpArticle;
  const update = async (id: string, input: Record<string, unknown>) =>
    (await gql<{ updateHelpArticle: Article }>(UPDATE, { id, i: input })).updateHelpArticle;
  const translate = async (id: string, input: Record<string, unknown>) =>
    (await gql<{ createHelpArticleTranslation: Article }>(TRANSLATE, { id, i: { bodyMarkdown: 'Corps', ...input } }))
      .createHelpArticleTranslation;
  const publish = async (id: string, locale?: string) =>
    (await gql<{ publishHelpArticle: Article }>(PUBLISH, { id, locale })).publishHelpArticle;
  const unpublish = async (id: string, locale?: string) =>
    (await gql<{ unpublishHelpArticle: Article }>(UNPUBLISH, { id, locale })).unpublishHelpArticle;

  /** A folder or tag of the owner's org, made through its own operation. */
  const folderOf = (owner: TestOrg) =>
    new ContentFixtures(harness, owner.sessionToken).folder(`Folder ${newId().slice(-6)}`);
  const tagOf = (owner: TestOrg) =>
    new ContentFixtures(harness, owner.sessionToken).term('HelpTag', `tag ${newId().slice(-6)}`);

  before(async function () {
    this.timeout(120_000);
    harness = await sharedStack();
    org = await harness.newOrg('Help center');
    key = (await org.mintKey(READ_MANAGE)).key;
    const stranger = await harness.newOrg('Stranger');
    other = { org: stranger, key: (await stranger.mintKey(READ_MANAGE)).key };
  });

  it('creates a DRAFT article in a folder with tags, its slug from the title and its body rendered safely', async () => {
    const folderId = await folderOf(org);
    const tags = [await tagOf(org), await tagOf(org)];
    const article = await create({
      title: '  Réinitialiser le mot de passe ! ',
      bodyMarkdown:
        'Click **Forgot**.\n\n<script>alert(1)</script>\n\n[docs](javascript:alert(1)) [site](https://example.com)',
      locale: 'fr',
      folderId,
      tagIds: [tags[0], tags[1], tags[0]],
    });
    expect(article).to.deep.include({
      folderId,
      tagIds: [...tags].sort(),
      defaultLocale: 'fr',
      locale: 'fr',
      title: 'Réinitialiser le mot de passe !',
      slug: 'reinitialiser-le-mot-de-passe',
      status: 'DRAFT',
      publishedAt: null,
    });
    expect(article.bodyHtml).to.contain('<strong>Forgot</strong>');
    expect(article.bodyHtml).not.to.match(/<script|href="javascript:/i);
    expect(article.bodyHtml).to.contain('&lt;script&gt;');
    expect(article.bodyHtml).to.contain('href="https://example.com" rel="noopener noreferrer nofollow"');
    expect(article.authorId).to.match(/^[0-9a-f]{24}$/);
    expect(article.translations.map((t) => t.locale)).to.deep.equal(['fr']);
    expect(await get(article.id)).to.deep.equal(article);
    const english = await create({ title: 'Hello' });
    expect(english).to.deep.include({ defaultLocale: 'en', locale: 'en', folderId: null, tagIds: [] });
  });

  it('suffixes a derived slug already taken in the locale, and refuses a chosen one that is taken', async () => {
    const title = `Shipping ${newId().slice(-6)}`;
    const base = title.toLowerCase().replace(' ', '-');
    const slugs = [];
    for (let i = 0; i < 3; i += 1) slugs.push((await create({ title })).slug);
    expect(slugs).to.deep.equal([base, `${base}-2`, `${base}-3`]);
    // Unique per locale: the same title in another locale takes the plain slug.
    expect((await create({ title, locale: 'de' })).slug).to.equal(base);
    const chosen = await create({ title: 'Anything', slug: `${base}-custom` });
    expect(chosen.slug).to.equal(`${base}-custom`);
    expectField(await call(CREATE, { i: { title, bodyMarkdown: '', slug: base } }), 'CONFLICT', 'slug');
    expectField(await call(UPDATE, { id: chosen.id, i: { slug: `${base}-2` } }), 'CONFLICT', 'slug');
    expectField(await call(CREATE, { i: { title, bodyMarkdown: '', slug: 'Not A Slug' } }), 'BAD_USER_INPUT', 'slug');
    // Its own slug is no conflict with itself; another org has its own slugs.
    expect((await update(chosen.id, { slug: `${base}-custom` })).slug).to.equal(`${base}-custom`);
    expect((await create({ title }, other.key)).slug).to.equal(base);
  });

  it('updates the text, folder and tags; the slug stays; folderId null takes it out of its folder', async () => {
    const [folder, otherFolder] = [await folderOf(org), await folderOf(org)];
    const tag = await tagOf(org);
    const article = await create({ title: 'Old title', bodyMarkdown: 'Oldword body', folderId: folder, tagIds: [tag] });
    const updated = await update(article.id, {
      title: 'New title',
      bodyMarkdown: '# Newword',
      folderId: otherFolder,
      tagIds: [],
    });
    expect(updated).to.deep.include({ title: 'New title', slug: 'old-title', folderId: otherFolder, tagIds: [] });
    expect(updated.bodyHtml).to.equal('<h1>Newword</h1>\n');
    expect(new Date(updated.updatedAt).getTime()).to.be.at.least(new Date(article.updatedAt).getTime());
    expect((await list({ query: 'newword' })).data.map((a) => a.id)).to.deep.equal([article.id]);
    expect((await list({ query: 'oldword' })).totalCount).to.equal(0);
    const kept = await update(article.id, { tagIds: [tag] });
    expect(kept).to.deep.include({ title: 'New title', folderId: otherFolder, tagIds: [tag] });
    expect((await update(article.id, { folderId: null })).folderId).to.equal(null);
  });

  it('adds translations in canonical locales, each read and published on its own', async () => {
    const article = await create({ title: 'Payments', bodyMarkdown: 'Pay' });
    const translated = await translate(article.id, { locale: 'pt-br', title: 'Pagamentos' });
    expect(translated).to.deep.include({ locale: 'pt-BR', title: 'Pagamentos', slug: 'pagamentos', status: 'DRAFT' });
    expect(translated.defaultLocale).to.equal('en');
    expect(translated.translations.map((t) => t.locale)).to.deep.equal(['en', 'pt-BR']);
    expect(await get(article.id, 'pt-BR')).to.deep.equal(translated);
    expectField(
      await call(TRANSLATE, { id: article.id, i: { locale: 'PT-BR', title: 'x', bodyMarkdown: '' } }),
      'CONFLICT',
      'locale',
    );
    expect((await get(article.id, 'PT-br')).title).to.equal('Pagamentos');
    expect((await get(article.id)).title).to.equal('Payments');
    expectField(await call(GET, { id: article.id, locale: 'de' }), 'NOT_FOUND', 'locale');

    const published = await publish(article.id, 'pt-BR');
    expect(published).to.deep.include({ locale: 'pt-BR', status: 'PUBLISHED' });
    expect(published.publishedAt).to.be.a('string');
    expect(published.translations.map((t) => t.status)).to.deep.equal(['DRAFT', 'PUBLISHED']);
    // Each answer is the article as stored after the change (its updatedAt too).
    expect(await get(article.id, 'pt-BR')).to.deep.equal(published);
    // Publishing a published translation changes nothing.
    expect((await publish(article.id, 'pt-BR')).publishedAt).to.equal(published.publishedAt);
    expect((await publish(article.id)).translations.map((t) => t.status)).to.deep.equal(['PUBLISHED', 'PUBLISHED']);
    const unpublished = await unpublish(article.id, 'pt-BR');
    expect(unpublished).to.deep.include({ locale: 'pt-BR', status: 'DRAFT', publishedAt: null });
    expect(unpublished.translations.map((t) => t.status)).to.deep.equal(['PUBLISHED', 'DRAFT']);
    expect((await unpublish(article.id, 'pt-BR')).status).to.equal('DRAFT');
    expectField(await call(PUBLISH, { id: article.id, locale: 'es' }), 'NOT_FOUND', 'locale');
    // Updating a translation changes its own text only.
    const edited = await update(article.id, { locale: 'pt-BR', bodyMarkdown: 'Pague *já*' });
    expect(edited).to.deep.include({ locale: 'pt-BR', bodyHtml: '<p>Pague <em>já</em></p>\n' });
    expect((await get(article.id)).bodyMarkdown).to.equal('Pay');
  });

  it('filters by folder, tag, status, locale and text query', async () => {
    const fresh = await harness.newOrg('Filters');
    const as = (await fresh.mintKey(READ_MANAGE)).key;
    const [folder, tag] = [await folderOf(fresh), await tagOf(fresh)];
    const inFolder = await create({ title: 'Refund policy', bodyMarkdown: 'Money back', folderId: folder }, as);
    const tagged = await create({ title: 'Delivery times', bodyMarkdown: 'Parcels', tagIds: [tag] }, as);
    const plain = await create({ title: 'Contact us', bodyMarkdown: 'Write to support' }, as);
    await gql(PUBLISH, { id: tagged.id }, as);
    await gql(
      TRANSLATE,
      { id: plain.id, i: { locale: 'fr', title: 'Nous contacter', bodyMarkdown: 'Écrivez-nous' } },
      as,
    );
    await gql(PUBLISH, { id: plain.id, locale: 'fr' }, as);
    const ids = async (filters: Record<string, unknown>) => (await list(filters, as)).data.map((a) => a.id);
    expect(await ids({})).to.deep.equal([plain.id, tagged.id, inFolder.id]);
    expect(await ids({ folderId: folder })).to.deep.equal([inFolder.id]);
    expect(await ids({ tagId: tag })).to.deep.equal([tagged.id]);
    expect(await ids({ status: 'PUBLISHED' })).to.deep.equal([tagged.id]);
    expect(await ids({ status: 'DRAFT' })).to.deep.equal([plain.id, inFolder.id]);
    expect(await ids({ locale: 'fr' })).to.deep.equal([plain.id]);
    expect(await ids({ locale: 'fr', status: 'PUBLISHED' })).to.deep.equal([plain.id]);
    expect((await list({ locale: 'fr' }, as)).data[0]).to.deep.include({ locale: 'fr', title: 'Nous contacter' });
    expect(await ids({ query: 'MONEY refu' })).to.deep.equal([inFolder.id]);
    expect(await ids({ query: 'ecrivez', locale: 'fr' })).to.deep.equal([plain.id]);
    expect(await ids({ query: 'ecrivez' })).to.deep.equal([]);
    expect(await ids({ query: 'parcels', folderId: folder })).to.deep.equal([]);
    expect(await ids({ folderId: newId() })).to.deep.equal([]);
  });

  it('pages through 27 articles with limit and offset, newest first, without skips or repeats', async function () {
    this.timeout(120_000);
    const fresh = await harness.newOrg('Many articles');
    const as = (await fresh.mintKey(READ_MANAGE)).key;
    const created: string[] = [];
    for (let i = 0; i < 27; i += 1) created.push((await create({ title: `Article ${i}` }, as)).id);
    const seen: string[] = [];
    for (let offset = 0; ; offset += 5) {
      const page = await list({ limit: 5, offset }, as);
      expect(page.totalCount).to.equal(27);
      seen.push(...page.data.map((a) => a.id));
      expect(page.hasMore).to.equal(offset + 5 < 27);
      if (!page.hasMore) break;
    }
    expect(seen).to.deep.equal([...created].reverse());
    const byDefault = await list({}, as);
    expect([byDefault.data.length, byDefault.hasMore]).to.deep.equal([20, true]);
    const past = await list({ offset: 30 }, as);
    expect(past).to.deep.equal({ data: [], totalCount: 27, hasMore: false });
  });

  it('refuses bad input naming the field', async () => {
    const article = await create({ title: 'Bad input' });
    expectField(
      await call(CREATE, { i: { title: 'x', bodyMarkdown: '', locale: 'not a locale!' } }),
      'BAD_USER_INPUT',
      'locale',
    );
    expectField(await call(LIST, { locale: 'en_US!!' }), 'BAD_USER_INPUT', 'locale');
    expectField(await call(GET, { id: article.id, locale: '12' }), 'BAD_USER_INPUT', 'locale');
    expectField(
      await call(TRANSLATE, { id: article.id, i: { locale: '??', title: 'x', bodyMarkdown: '' } }),
      'BAD_USER_INPUT',
      'locale',
    );
    expectField(await call(LIST, { limit: 0 }), 'BAD_USER_INPUT', 'limit');
    expectField(await call(LIST, { limit: 101 }), 'BAD_USER_INPUT', 'limit');
    expectField(await call(LIST, { offset: -1 }), 'BAD_USER_INPUT', 'offset');
    expectField(await call(LIST, { query: 'a' }), 'BAD_USER_INPUT', 'query');
    expectField(await call(LIST, { folderId: 'nope' }), 'BAD_USER_INPUT', 'folderId');
    expectField(await call(CREATE, { i: { title: '   ', bodyMarkdown: '' } }), 'BAD_USER_INPUT', 'title');
    expectField(await call(CREATE, { i: { title: 'x'.repeat(301), bodyMarkdown: '' } }), 'BAD_USER_INPUT', 'title');
    expectField(
      await call(CREATE, { i: { title: 'x', bodyMarkdown: 'x'.repeat(100_001) } }),
      'BAD_USER_INPUT',
      'bodyMarkdown',
    );
    expectField(await call(UPDATE, { id: article.id, i: { title: '' } }), 'BAD_USER_INPUT', 'title');
    expectField(
      await call(CREATE, { i: { title: 'x', bodyMarkdown: '', folderId: newId() } }),
      'NOT_FOUND',
      'folderId',
    );
    expectField(await call(CREATE, { i: { title: 'x', bodyMarkdown: '', tagIds: [newId()] } }), 'NOT_FOUND', 'tagIds');
    expectField(await call(UPDATE, { id: article.id, i: { folderId: 'x' } }), 'BAD_USER_INPUT', 'folderId');
    expectField(await call(GET, { id: 'not-an-id' }), 'BAD_USER_INPUT', 'id');
    expectField(await call(GET, { id: newId() }), 'NOT_FOUND', 'id');
    expectError(await call(LIST, { status: 'LIVE' }), 200, 'BAD_USER_INPUT');
    // Nothing of the refused calls was stored.
    expect((await get(article.id)).title).to.equal('Bad input');
  });

  it('reads with CONTENT_READ, changes only with CONTENT_MANAGE', async () => {
    const article = await create({ title: 'Scopes' });
    const reader = (await org.mintKey([ApiScope.CONTENT_READ])).key;
    const manager = (await org.mintKey([ApiScope.CONTENT_MANAGE])).key;
    expect((await call<{ helpArticle: Article }>(GET, { id: article.id }, reader)).body.data?.helpArticle.id).to.equal(
      article.id,
    );
    for (const [query, variables] of [
      [CREATE, { i: { title: 'x', bodyMarkdown: '' } }],
      [UPDATE, { id: article.id, i: { title: 'y' } }],
      [TRANSLATE, { id: article.id, i: { locale: 'fr', title: 'x', bodyMarkdown: '' } }],
      [PUBLISH, { id: article.id }],
      [UNPUBLISH, { id: article.id }],
      [DELETE, { id: article.id }],
    ] as const) {
      const refused = await call(query, variables, reader);
      expectError(refused, 403, 'FORBIDDEN');
      expect(refused.body.errors?.[0]?.extensions?.scope).to.equal('CONTENT_MANAGE');
    }
    for (const [query, variables] of [
      [GET, { id: article.id }],
      [LIST, {}],
    ] as const) {
      const refused = await call(query, variables, manager);
      expectError(refused, 403, 'FORBIDDEN');
      expect(refused.body.errors?.[0]?.extensions?.scope).to.equal('CONTENT_READ');
    }
    expect((await get(article.id)).title).to.equal('Scopes');
  });

  it("answers another org's article exactly as an unknown id on every operation, and never lists it", async () => {
    const theirs = await create({ title: `Private ${newId().slice(-6)}`, bodyMarkdown: 'Secretword' }, other.key);
    const theirTag = await tagOf(other.org);
    const theirFolder = await folderOf(other.org);
    const mine = await create({ title: 'Mine' });
    const calls: [string, (id: string) => Record<string, unknown>][] = [
      [GET, (id) => ({ id })],
      [UPDATE, (id) => ({ id, i: { title: 'Taken over' } })],
      [TRANSLATE, (id) => ({ id, i: { locale: 'it', title: 'x', bodyMarkdown: '' } })],
      [PUBLISH, (id) => ({ id })],
      [UNPUBLISH, (id) => ({ id })],
      [DELETE, (id) => ({ id })],
    ];
    for (const [query, variables] of calls) {
      const unknown = newId();
      const foreign = refusalOf(await call(query, variables(theirs.id)), theirs.id);
      expect(foreign.code, query).to.equal('NOT_FOUND');
      expect(foreign, query).to.deep.equal(refusalOf(await call(query, variables(unknown)), unknown));
    }
    for (const [input, field] of [
      [{ folderId: theirFolder }, 'folderId'],
      [{ tagIds: [theirTag] }, 'tagIds'],
    ] as const) {
      expectField(await call(UPDATE, { id: mine.id, i: input }), 'NOT_FOUND', field);
      expectField(await call(CREATE, { i: { title: 'x', bodyMarkdown: '', ...input } }), 'NOT_FOUND', field);
    }
    expect((await list({ query: 'secretword' })).totalCount).to.equal(0);
    expect((await list({ tagId: theirTag })).totalCount).to.equal(0);
    const untouched = (await gql<{ helpArticle: Article }>(GET, { id: theirs.id }, other.key)).helpArticle;
    expect(untouched).to.deep.equal(theirs);
  });

  it('deletes an article with its translations and search terms', async () => {
    const article = await create({ title: 'Doomed', bodyMarkdown: 'Vanishingword' });
    await translate(article.id, { locale: 'es', title: 'Condenado' });
    expect(
      (await gql<{ deleteHelpArticle: { id: string } }>(DELETE, { id: article.id })).deleteHelpArticle,
    ).to.deep.equal({ id: article.id });
    expectField(await call(GET, { id: article.id }), 'NOT_FOUND', 'id');
    expectField(await call(DELETE, { id: article.id }), 'NOT_FOUND', 'id');
    expect((await list({ query: 'vanishingword' })).totalCount).to.equal(0);
    expect((await list({ locale: 'es', query: 'condenado' })).totalCount).to.equal(0);
  });

  it('emits help_article.<verb> on svc.content.help.v1 for every change, with the locale and state', async () => {
    const seen: Envelope[] = [];
    const prefix = harness.stack.config.KAFKA_TOPIC_PREFIX;
    const subscription = await harness.stack.bus.subscribe({
      groupId: `e2e-help-articles-${newId()}`,
      topics: [`${prefix}svc.content.help.v1`],
      fromBeginning: true,
      handle: async (record) => {
        const envelope = Envelope.decode(record.value);
        if (envelope.orgId === org.id) seen.push(envelope);
      },
    });
    try {
      const article = await create({ title: 'Evented' });
      await update(article.id, { title: 'Evented again' });
      await translate(article.id, { locale: 'nl', title: 'Gebeurd' });
      await publish(article.id, 'nl');
      await publish(article.id, 'nl');
      await unpublish(article.id, 'nl');
      await gql(DELETE, { id: article.id });
      const events = await eventually(
        async () => {
          const mine = seen.filter((e) => e.content?.id === article.id);
          return mine.length >= 6 ? mine : undefined;
        },
        30_000,
        'help article events',
      );
      expect(events.map((e) => [e.type, e.content?.locale, e.content?.status])).to.deep.equal([
        ['help_article.created', 'en', 'DRAFT'],
        ['help_article.updated', 'en', 'DRAFT'],
        ['help_article.translation_created', 'nl', 'DRAFT'],
        ['help_article.published', 'nl', 'PUBLISHED'],
        ['help_article.unpublished', 'nl', 'DRAFT'],
        ['help_article.deleted', '', ''],
      ]);
    } finally {
      await subscription.stop();
    }
  });
});
