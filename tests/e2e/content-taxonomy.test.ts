import { expect } from 'chai';
import { ApiScope, newId } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { randomId } from '../support/argument-values';
import { type StackHarness, type GraphQLResponse, type TestOrg } from '../support/stack-harness';
import { sharedStack } from '../support/shared-stack';
import { dataOf, expectError } from './inbox-fixtures';

interface Term {
  id: string;
  name: string;
  count: number;
  createdAt: string;
  updatedAt: string;
}

interface Page {
  data: Term[];
  totalCount: number;
  hasMore: boolean;
}

/**
 * One kind of term as the API names it, the link table (another area's) whose rows point at its terms, and the
 * operation making an item with links (`create<item.type>`, terms in `input.<item.field>`).
 */
interface Kind {
  singular: string;
  plural: string;
  countField: 'articleCount' | 'postCount';
  link: { table: string; item: string; term: string };
  item: { type: 'HelpArticle' | 'NewsPost'; field: 'tagIds' | 'categoryIds' };
  eventObject: string;
  topic: string;
}

const KINDS: Kind[] = [
  {
    singular: 'HelpTag',
    plural: 'HelpTags',
    countField: 'articleCount',
    link: { table: 'help_article_tags', item: 'article_id', term: 'tag_id' },
    item: { type: 'HelpArticle', field: 'tagIds' },
    eventObject: 'help_tag',
    topic: 'svc.content.help.v1',
  },
  {
    singular: 'NewsCategory',
    plural: 'NewsCategories',
    countField: 'postCount',
    link: { table: 'news_post_categories', item: 'post_id', term: 'category_id' },
    item: { type: 'NewsPost', field: 'categoryIds' },
    eventObject: 'news_category',
    topic: 'svc.content.news.v1',
  },
  {
    singular: 'NewsTag',
    plural: 'NewsTags',
    countField: 'postCount',
    link: { table: 'news_post_tags', item: 'post_id', term: 'tag_id' },
    item: { type: 'NewsPost', field: 'tagIds' },
    eventObject: 'news_tag',
    topic: 'svc.content.news.v1',
  },
];

const lowerFirst = (name: string) => `${name.charAt(0).toLowerCase()}${name.slice(1)}`;

/** The kind's five operations as GraphQL documents, each answering the term (or page) under `result`. */
function documentsOf(kind: Kind) {
  const term = `id name count: ${kind.countField} createdAt updatedAt`;
  return {
    list: `query($limit: Int, $offset: Int, $query: String) { result: ${lowerFirst(kind.plural)}(limit: $limit, offset: $offset, query: $query) { data { ${term} } totalCount hasMore } }`,
    get: `query($id: String!) { result: ${lowerFirst(kind.singular)}(id: $id) { ${term} } }`,
    create: `mutation($name: String!) { result: create${kind.singular}(input: { name: $name }) { ${term} } }`,
    update: `mutation($id: String!, $name: String!) { result: update${kind.singular}(id: $id, input: { name: $name }) { ${term} } }`,
    delete: `mutation($id: String!) { result: delete${kind.singular}(id: $id) { id linksRemoved } }`,
  };
}

/** Everything a caller sees, with the id asked about written as `<id>`, for comparing two refusals. */
const refusalOf = ({ status, body }: GraphQLResponse, id: string): unknown =>
  JSON.parse(JSON.stringify({ status, body }).replaceAll(id, '<id>'));

function expectField(response: GraphQLResponse, code: string, field: string): void {
  expectError(response, 200, code);
  expect(response.body.errors?.[0]?.extensions?.field, JSON.stringify(response.body)).to.equal(field);
}

describe('Help tags, news categories and news tags (whole stack over HTTP)', function () {
  let harness: StackHarness;
  const seen: Envelope[] = [];
  let stopObserving: () => Promise<void> = async () => undefined;
  let org: TestOrg;
  let key: string;

  before(async function () {
    this.timeout(120_000);
    harness = await sharedStack();
    org = await harness.newOrg('Taxonomy');
    key = (await org.mintKey([ApiScope.CONTENT_READ, ApiScope.CONTENT_MANAGE])).key;
    const prefix = harness.stack.config.KAFKA_TOPIC_PREFIX;
    const subscription = await harness.stack.bus.subscribe({
      groupId: `e2e-taxonomy-${newId()}`,
      topics: [...new Set(KINDS.map((kind) => `${prefix}${kind.topic}`))],
      fromBeginning: true,
      handle: async (record) => {
        const envelope = Envelope.decode(record.value);
        if (envelope.orgId === org.id) seen.push(envelope);
      },
    });
    stopObserving = () => subscription.stop();
  });

  after(() => stopObserving());

  /** Events of the org about `id`, in order, once `count` of them arrived (polled with a deadline). */
  async function eventsOf(id: string, count: number): Promise<string[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const types = seen.filter((event) => event.content?.id === id).map((event) => event.type);
      if (types.length >= count || Date.now() > deadline) return types;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  for (const kind of KINDS) {
    describe(kind.plural, () => {
      const documents = documentsOf(kind);
      const call = (document: string, variables: Record<string, unknown>, as = key) =>
        harness.graphql<{ result: unknown }>(document, variables, as);
      const result = async <T>(document: string, variables: Record<string, unknown>, as = key) =>
        dataOf(await call(document, variables, as)).result as T;
      const create = (name: string, as = key) => result<Term>(documents.create, { name }, as);
      const list = (variables: Record<string, unknown> = {}, as = key) => result<Page>(documents.list, variables, as);
      const unique = (label: string) => `${label} ${randomId().slice(-8)}`;

      it('creates, reads, lists, renames and deletes, one event each', async () => {
        const name = unique('Billing');
        const created = await create(`  ${name.replace(' ', '   ')}  `);
        expect(created).to.include({ name, count: 0 });
        expect(created.createdAt).to.equal(created.updatedAt);
        expect(await result<Term>(documents.get, { id: created.id })).to.deep.equal(created);
        expect((await list({ query: name })).data).to.deep.equal([created]);
        const renamed = await result<Term>(documents.update, { id: created.id, name: `${name} and invoices` });
        expect(renamed).to.include({ id: created.id, name: `${name} and invoices`, createdAt: created.createdAt });
        // The same name again changes nothing (no event); another case of it is a rename.
        expect(await result<Term>(documents.update, { id: created.id, name: renamed.name })).to.deep.equal(renamed);
        const recased = await result<Term>(documents.update, { id: created.id, name: renamed.name.toUpperCase() });
        expect(recased.name).to.equal(renamed.name.toUpperCase());
        expect(await result(documents.delete, { id: created.id })).to.deep.equal({ id: created.id, linksRemoved: 0 });
        expectError(await call(documents.get, { id: created.id }), 200, 'NOT_FOUND');
        expectError(await call(documents.delete, { id: created.id }), 200, 'NOT_FOUND');
        const object = kind.eventObject;
        expect(await eventsOf(created.id, 4)).to.deep.equal([
          `${object}.created`,
          `${object}.updated`,
          `${object}.updated`,
          `${object}.deleted`,
        ]);
      });

      it('refuses reads without CONTENT_READ and writes without CONTENT_MANAGE (403 FORBIDDEN naming the scope)', async () => {
        const term = await create(unique('Scoped'));
        const readOnly = (await org.mintKey([ApiScope.CONTENT_READ])).key;
        const manageOnly = (await org.mintKey([ApiScope.CONTENT_MANAGE])).key;
        for (const [document, variables] of [
          [documents.list, {}],
          [documents.get, { id: term.id }],
        ] as const) {
          const refused = await call(document, variables, manageOnly);
          expectError(refused, 403, 'FORBIDDEN');
          expect(refused.body.errors?.[0]?.extensions?.scope).to.equal('CONTENT_READ');
        }
        for (const [document, variables] of [
          [documents.create, { name: unique('Refused') }],
          [documents.update, { id: term.id, name: unique('Refused') }],
          [documents.delete, { id: term.id }],
        ] as const) {
          const refused = await call(document, variables, readOnly);
          expectError(refused, 403, 'FORBIDDEN');
          expect(refused.body.errors?.[0]?.extensions?.scope).to.equal('CONTENT_MANAGE');
        }
        expect(await result<Term>(documents.get, { id: term.id }, readOnly)).to.deep.equal(term);
      });

      it('answers another org’s id exactly like an id nobody has, lists only the org’s own, and changes nothing', async () => {
        const other = await harness.newOrg('Other');
        const otherKey = (await other.mintKey([ApiScope.CONTENT_READ, ApiScope.CONTENT_MANAGE])).key;
        const name = unique('Shared name');
        const theirs = await create(name, otherKey);
        // Names are unique per org only.
        const mine = await create(name);
        const nobodys = randomId();
        for (const [document, variables] of [
          [documents.get, {}],
          [documents.update, { name: unique('Taken over') }],
          [documents.delete, {}],
        ] as const) {
          const foreign = refusalOf(await call(document, { ...variables, id: theirs.id }), theirs.id);
          expectError(await call(document, { ...variables, id: theirs.id }), 200, 'NOT_FOUND');
          expect(foreign).to.deep.equal(refusalOf(await call(document, { ...variables, id: nobodys }), nobodys));
          // A malformed id is answered the same way.
          const malformed = '?not an id?';
          expect(foreign).to.deep.equal(refusalOf(await call(document, { ...variables, id: malformed }), malformed));
        }
        expect(await result<Term>(documents.get, { id: theirs.id }, otherKey)).to.deep.equal(theirs);
        expect((await list({ query: name })).data).to.deep.equal([mine]);
        expect((await list({ query: name }, otherKey)).data).to.deep.equal([theirs]);
      });

      it('refuses an empty, blank, too long or control-character name and a bad page (BAD_USER_INPUT naming the field)', async () => {
        const term = await create(unique('Valid'));
        for (const name of ['', '   ', 'x'.repeat(101), 'tab\u0007bell']) {
          expectField(await call(documents.create, { name }), 'BAD_USER_INPUT', 'name');
          expectField(await call(documents.update, { id: term.id, name }), 'BAD_USER_INPUT', 'name');
        }
        // 100 characters (code points, an emoji being one) are fine.
        const longest = `${'é'.repeat(98)}🙂x`;
        expect((await create(longest)).name).to.equal(longest);
        expectField(await call(documents.list, { limit: 0 }), 'BAD_USER_INPUT', 'limit');
        expectField(await call(documents.list, { limit: 101 }), 'BAD_USER_INPUT', 'limit');
        expectField(await call(documents.list, { offset: -1 }), 'BAD_USER_INPUT', 'offset');
        expectField(await call(documents.list, { query: 'q'.repeat(101) }), 'BAD_USER_INPUT', 'query');
        expect(await result<Term>(documents.get, { id: term.id })).to.deep.equal(term);
      });

      it('refuses a name the org already has regardless of case and spacing (CONFLICT naming name), also at once', async () => {
        const name = unique('Onboarding');
        const first = await create(name);
        expectField(await call(documents.create, { name: ` ${name.toUpperCase()} ` }), 'CONFLICT', 'name');
        const second = await create(unique('Other'));
        expectField(await call(documents.update, { id: second.id, name: name.toLowerCase() }), 'CONFLICT', 'name');
        expect(await result<Term>(documents.get, { id: second.id })).to.deep.equal(second);
        // Several writers at once: the unique index refuses all but one.
        const racing = unique('Race');
        const answers = await Promise.all(Array.from({ length: 6 }, () => call(documents.create, { name: racing })));
        const codes = answers.map((answer) => answer.body.errors?.[0]?.extensions?.code ?? 'OK').sort();
        expect(codes).to.deep.equal(['CONFLICT', 'CONFLICT', 'CONFLICT', 'CONFLICT', 'CONFLICT', 'OK']);
        for (const answer of answers.filter((a) => a.body.errors))
          expect(answer.body.errors?.[0]?.extensions?.field).to.equal('name');
        expect((await list({ query: racing })).totalCount).to.equal(1);
        expect((await list({ query: name })).data).to.deep.equal([first]);
      });

      it('pages by name then id without skipping or repeating, with a name-prefix query', async () => {
        const own = await harness.newOrg('Pages');
        const ownKey = (await own.mintKey([ApiScope.CONTENT_READ])).key;
        const manageKey = (await own.mintKey([ApiScope.CONTENT_MANAGE])).key;
        const names = ['delta', 'Alpha', 'charlie', 'Bravo', 'alphabet', 'Écho', 'echo', 'foxtrot'];
        for (const name of names) await create(name, manageKey);
        const whole = await list({ limit: 100 }, ownKey);
        expect(whole).to.include({ totalCount: names.length, hasMore: false });
        // Ordered by the lower-cased name, by code point ('é' after every ASCII letter).
        expect(whole.data.map((term) => term.name)).to.deep.equal([
          'Alpha',
          'alphabet',
          'Bravo',
          'charlie',
          'delta',
          'echo',
          'foxtrot',
          'Écho',
        ]);
        for (const limit of [1, 2, 3]) {
          const walked: Term[] = [];
          for (let offset = 0; ; offset += limit) {
            const page = await list({ limit, offset }, ownKey);
            expect(page.totalCount).to.equal(names.length);
            walked.push(...page.data);
            expect(page.hasMore).to.equal(offset + limit < names.length);
            if (!page.hasMore) break;
          }
          expect(walked).to.deep.equal(whole.data);
        }
        expect((await list({ offset: 100 }, ownKey)).data).to.deep.equal([]);
        const alphas = await list({ query: ' ALPHA', limit: 1 }, ownKey);
        expect(alphas).to.deep.include({ totalCount: 2, hasMore: true });
        expect(alphas.data.map((term) => term.name)).to.deep.equal(['Alpha']);
        expect((await list({ query: 'é' }, ownKey)).data.map((term) => term.name)).to.deep.equal(['Écho']);
        expect((await list({ query: '%' }, ownKey)).totalCount).to.equal(0);
      });

      it('counts the items a term is on and deletes it with every link, in one go', async () => {
        const { dataSource } = harness.stack.content;
        const itemOn = async (...termIds: string[]) =>
          (
            await result<{ id: string }>(
              `mutation($i: Create${kind.item.type}Input!) { result: create${kind.item.type}(input: $i) { id } }`,
              { i: { title: unique('Linked'), bodyMarkdown: 'Body', [kind.item.field]: termIds } },
            )
          ).id;
        const linksOf = async (term: string) =>
          (
            (await dataSource.query(
              `SELECT ${kind.link.item} AS item FROM ${kind.link.table} WHERE ${kind.link.term} = ?`,
              [term],
            )) as { item: string }[]
          ).map((row) => row.item);
        const doomed = await create(unique('Doomed'));
        const kept = await create(unique('Kept'));
        const first = await itemOn(doomed.id, kept.id);
        for (let more = 0; more < 2; more += 1) await itemOn(doomed.id);
        expect((await result<Term>(documents.get, { id: doomed.id })).count).to.equal(3);
        const page = await list({ query: 'Doomed' });
        expect(page.data.find((term) => term.id === doomed.id)?.count).to.equal(3);
        expect(await result(documents.delete, { id: doomed.id })).to.deep.equal({ id: doomed.id, linksRemoved: 3 });
        expect(await linksOf(doomed.id)).to.deep.equal([]);
        expect(await linksOf(kept.id)).to.deep.equal([first]);
        expect((await result<Term>(documents.get, { id: kept.id })).count).to.equal(1);
      });
    });
  }
});
