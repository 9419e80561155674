import { expect } from 'chai';
import { getNamedType, isObjectType, isScalarType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { OrgKind } from '@svc/kit';
import { publicSchema } from '@svc/gateway';
import { type StackHarness, type TestOrg } from '../support/stack-harness';
import { sharedStack } from '../support/shared-stack';
import { operationCall, type ArgumentValueOptions } from '../support/argument-values';
import { insertPartnerDelivery } from '../support/partner-webhooks';
import {
  MAX_LIMIT,
  offsetListProblems,
  offsetQueries,
  pageShapedQueries,
  type FetchPage,
  type OffsetPage,
} from '../support/offset-pages';

/**
 * Every list paged with plain `limit` / `offset` (spec 2.2; docs/decisions/0181), found in the public schema: seeded
 * with several objects, walked with small limits, compared with one big page; and its bounds refused. A new list is
 * covered without editing this file; one its item type's `create<Item>` mutation cannot seed gets a SEEDERS entry.
 */

const WALK_LIMITS = [1, 2, 3] as const;
/** Objects seeded per list: several pages for every walk limit, with a short last page for 2 and 3. */
const SEEDED = 7;
const OUT_OF_BOUNDS = [
  { argument: 'limit', value: 0 },
  { argument: 'limit', value: MAX_LIMIT + 1 },
  { argument: 'offset', value: -1 },
] as const;
/** The content lists of spec 4.2: each one the schema exposes must be found as an offset list. */
const CONTENT_LISTS = ['helpArticles', 'helpFolders', 'helpTags', 'newsPosts', 'newsCategories', 'newsTags'];

/** The public schema, built once: its types are compared by identity. */
const schema = publicSchema();

/** Arguments a list needs besides limit and offset to list what its seeder made (a webhook's deliveries). */
const listArguments: Record<string, Record<string, unknown>> = {};

/** Public-looking endpoints never called (partner webhooks are registered, not delivered to, here). */
const WEBHOOK_INPUT = { url: 'https://93.184.215.14/hook', events: ['message.created'] };

async function registerWebhook(org: TestOrg): Promise<string> {
  const response = await org.harness.graphql<{ registerPartnerWebhook: { webhook: { id: string } } }>(
    'mutation($i: RegisterPartnerWebhookInput!) { registerPartnerWebhook(input: $i) { webhook { id } } }',
    { i: WEBHOOK_INPUT },
    org.sessionToken,
  );
  const id = response.body.data?.registerPartnerWebhook.webhook.id;
  if (!id) throw new Error(`registerPartnerWebhook: ${JSON.stringify(response.body)}`);
  return id;
}

/** Lists whose items the generic `create<Item>` call cannot make: list name -> how to add `count` items. */
const SEEDERS: Record<string, (org: TestOrg, count: number) => Promise<void>> = {
  partnerWebhooks: async (org, count) => {
    for (let i = 0; i < count; i++) await registerWebhook(org);
  },
  // Deliveries come from client orgs' events; written where the delivery engine writes them, some at the same time.
  partnerWebhookDeliveries: async (org, count) => {
    const webhookId = await registerWebhook(org);
    const at = Date.now();
    for (let i = 0; i < count; i++)
      await insertPartnerDelivery(
        org.harness,
        { orgId: org.id, id: webhookId },
        { createdAt: new Date(at - 1000 * Math.floor(i / 2)) },
      );
    listArguments.partnerWebhookDeliveries = { webhookId };
  },
};

/** Locales are BCP-47 (`en`), never the random strings other arguments get. */
const fill: NonNullable<ArgumentValueOptions['fill']> = (path, type) => {
  const name = [...path].reverse().find((part): part is string => typeof part === 'string') ?? '';
  return /locale$/i.test(name) && isScalarType(getNamedType(type)) ? 'en' : undefined;
};

/** The mutation making one item of a list: `create<Item>` answering the item (or a payload holding it). */
function creatorOf(itemType: GraphQLObjectType): GraphQLField<unknown, unknown> | undefined {
  const creator = schema.getMutationType()?.getFields()[`create${itemType.name}`];
  if (!creator) return undefined;
  const answer = getNamedType(creator.type);
  const holds =
    answer === itemType ||
    (isObjectType(answer) && Object.values(answer.getFields()).some((f) => getNamedType(f.type) === itemType));
  return holds ? creator : undefined;
}

describe('Content pagination: every limit/offset list walked without skips or repeats (whole stack over HTTP)', function () {
  let harness: StackHarness;
  let org: TestOrg;
  const lists = offsetQueries(schema);

  before(async () => {
    harness = await sharedStack();
    // A TECH_PROVIDER org: it can call every list, the partner ones (clientOrgs) included.
    org = await harness.newOrg('Acme', OrgKind.TECH_PROVIDER);
  });

  async function call<T>(
    kind: 'query' | 'mutation',
    field: GraphQLField<unknown, unknown>,
    overrides: Record<string, unknown>,
    selection?: string,
  ) {
    const { query, variables } = operationCall(kind, field, { fill, overrides, selection });
    return harness.graphql<Record<string, T>>(query, variables, org.sessionToken);
  }

  async function seed(field: GraphQLField<unknown, unknown>, itemType: GraphQLObjectType): Promise<void> {
    const seeder = SEEDERS[field.name];
    if (seeder) return seeder(org, SEEDED);
    const creator = creatorOf(itemType);
    if (!creator) throw new Error(`${field.name}: no create${itemType.name} mutation; add a SEEDERS entry`);
    for (let i = 0; i < SEEDED; i++) {
      const response = await call('mutation', creator, {});
      if (response.body.errors?.length)
        throw new Error(`${creator.name} (seeding ${field.name}): ${JSON.stringify(response.body.errors)}`);
    }
  }

  function pagesOf(field: GraphQLField<unknown, unknown>): FetchPage {
    return async (limit, offset) => {
      const response = await call<{ data: { id: string }[]; totalCount: number; hasMore: boolean }>(
        'query',
        field,
        { ...listArguments[field.name], limit, offset },
        '{ data { id } totalCount hasMore }',
      );
      const page = response.body.data?.[field.name];
      if (!page) throw new Error(`${field.name}(limit ${limit}, offset ${offset}): ${JSON.stringify(response.body)}`);
      return { ids: page.data.map((item) => item.id), totalCount: page.totalCount, hasMore: page.hasMore };
    };
  }

  it('every Query answering { data, totalCount, hasMore } takes limit and offset, and every one taking both answers such a page', () => {
    const offsetNames = lists.map((list) => list.field.name).sort();
    const pageNames = pageShapedQueries(schema)
      .map((field) => field.name)
      .sort();
    expect(offsetNames).to.deep.equal(pageNames);
  });

  it('finds every content list the schema exposes', () => {
    const exposed = Object.keys(schema.getQueryType()?.getFields() ?? {}).filter((name) =>
      CONTENT_LISTS.includes(name),
    );
    expect(lists.map((list) => list.field.name)).to.include.members(exposed);
  });

  for (const { field, itemType } of lists) {
    it(`${field.name}: pages of ${WALK_LIMITS.join(', ')} give exactly one page of ${MAX_LIMIT}, no skips or repeats`, async () => {
      if (!itemType) throw new Error(`${field.name} answers no { data { id }, totalCount, hasMore } page`);
      await seed(field, itemType);
      const fetchPage = pagesOf(field);
      const whole: OffsetPage = await fetchPage(MAX_LIMIT, 0);
      expect(whole.totalCount, `${field.name} lists what was seeded`).to.be.at.least(SEEDED);
      expect(whole.ids).to.have.length(whole.totalCount);
      expect(await offsetListProblems(fetchPage, WALK_LIMITS)).to.deep.equal([]);
      // past the end: an empty page, not an error
      expect(await fetchPage(3, whole.totalCount)).to.deep.equal({
        ids: [],
        totalCount: whole.totalCount,
        hasMore: false,
      });
    });

    it(`${field.name}: ${OUT_OF_BOUNDS.map((b) => `${b.argument}: ${b.value}`).join(', ')} are BAD_USER_INPUT naming the argument`, async () => {
      for (const { argument, value } of OUT_OF_BOUNDS) {
        const response = await call('query', field, { [argument]: value }, '{ totalCount }');
        const error = response.body.errors?.[0];
        expect(error?.extensions?.code, `${argument}: ${value}: ${JSON.stringify(response.body)}`).to.equal(
          'BAD_USER_INPUT',
        );
        expect(error?.extensions?.field, `${argument}: ${value}: ${JSON.stringify(response.body)}`).to.equal(argument);
      }
    });
  }
});

describe('Content pagination: the walker finds skips and repeats', () => {
  /** A list of `ids` served in `order` (which may change per call), with honest counts unless told otherwise. */
  function list(ids: string[], order: (call: number) => string[] = () => ids, pageSize = (limit: number) => limit) {
    let calls = 0;
    return async (limit: number, offset: number): Promise<OffsetPage> => {
      const rows = order(calls++);
      const page = rows.slice(offset, offset + pageSize(limit));
      return { ids: page, totalCount: rows.length, hasMore: offset + page.length < rows.length };
    };
  }
  const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

  it('passes a list in a total order', async () => {
    expect(await offsetListProblems(list(ids), WALK_LIMITS)).to.deep.equal([]);
  });

  it('reports ties served in another order on each query (no id as the last key): skips and repeats', async () => {
    const shuffled = list(ids, (call) => (call % 2 ? [...ids].reverse() : ids));
    const problems = await offsetListProblems(shuffled, WALK_LIMITS);
    expect(problems.join('\n'))
      .to.match(/skipped/)
      .and.to.match(/repeated/);
  });

  it('reports a page longer than the limit and a lying hasMore', async () => {
    expect(
      await offsetListProblems(
        list(ids, undefined, (limit) => limit + 1),
        [2],
      ),
    ).to.deep.equal(['limit 2, offset 0: 3 items, expected 2 of 7']);
    const lying: FetchPage = async (limit, offset) => ({
      ...(await list(ids)(limit, offset)),
      hasMore: true,
    });
    expect(await offsetListProblems(lying, [3])).to.deep.equal(['limit 3, offset 6: hasMore true with 1 items of 7']);
  });

  it('reports a totalCount that changes during the walk (content changed between pages)', async () => {
    const growing = list(ids, (call) => (call < 2 ? ids : [...ids, 'h']));
    expect(await offsetListProblems(growing, [3])).to.deep.equal(['limit 3, offset 3: totalCount 8, was 7']);
  });
});
