import { expect } from 'chai';
import {
  buildSchema,
  buildASTSchema,
  Kind,
  parse,
  print,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { composeSupergraph } from '../src/compose';
import { ROUTES } from '../src/routes';
import { publicSchema } from '../src/schema';
import { SelectionCache, delegatedSelection, wholeSelection } from '../src/selection';
import { SUBGRAPHS, rawFieldName } from '../src/subgraphs';

const PUBLIC = buildSchema(`
  type Query { page: Page! items: [Item!]! done: Boolean! }
  type Page { data: [Item!]! hasNext: Boolean! summary: String }
  type Item { id: String! text: String! tags: [String!]! card: Card }
  type Card { name: String phone: String }
`);
const RAW = buildSchema(`
  type Query { page: RawPage items: RawItems done: RawOk }
  type RawPage { data: [RawItem] hasNext: Boolean }
  type RawItem { id: String text: String tags: [String] card: RawCard extra: String }
  type RawCard { name: String phone: String }
  type RawItems { items: [RawItem] }
  type RawOk { ok: Boolean }
`);

/** The root field nodes of `query` for `field`, and the document's fragments, as a resolver's `info` has them. */
function selected(query: string, field: string) {
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  const nodes = operation.selectionSet.selections.filter(
    (s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === field,
  );
  const fragments = Object.fromEntries(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  return { nodes, fragments, sets: nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : [])) };
}

function delegated(
  schemas: { public: GraphQLSchema; raw: GraphQLSchema },
  field: string,
  rawField: string,
  query: string,
) {
  const { sets, fragments } = selected(query, field);
  const publicType = schemas.public.getQueryType()?.getFields()[field]?.type;
  const rawType = schemas.raw.getQueryType()?.getFields()[rawField]?.type;
  if (!publicType || !rawType) throw new Error(`no field ${field} / ${rawField}`);
  const selection = delegatedSelection(publicType, rawType, sets, fragments);
  return selection && print(selection);
}

const printed = (selection: string) => print((parse(selection).definitions[0] as OperationDefinitionNode).selectionSet);
const shapes = { public: PUBLIC, raw: RAW };

describe('gateway.delegatedSelection', () => {
  it('asks only for the selected fields, nested ones included', () => {
    expect(delegated(shapes, 'page', 'page', '{ page { data { id card { name } } } }')).to.equal(
      printed('{ data { id card { name } } }'),
    );
  });

  it('merges aliases, fragments, inline fragments and repeated fields into one request per field, without __typename', () => {
    const query = `{
      page { __typename a: data { id } b: data { text ...Card } ... on Page { hasNext } }
      again: page @include(if: false) { data { tags } }
    }
    fragment Card on Item { card { phone } text }`;
    expect(delegated(shapes, 'page', 'page', query)).to.equal(
      printed('{ data { id text card { phone } tags } hasNext }'),
    );
  });

  it('asks for __typename alone when nothing else is selected', () => {
    expect(delegated(shapes, 'page', 'page', '{ page { __typename } }')).to.equal(printed('{ __typename }'));
  });

  it('gives up (the caller asks for the whole message) when the public shape is not the raw one', () => {
    // A field the gateway derives from another, a list picked out of a response, a boolean made of a response.
    expect(delegated(shapes, 'page', 'page', '{ page { summary } }')).to.equal(undefined);
    expect(delegated(shapes, 'items', 'items', '{ items { id } }')).to.equal(undefined);
    expect(delegated(shapes, 'done', 'done', '{ done }')).to.equal(undefined);
  });
});

describe('gateway.SelectionCache', () => {
  const query = '{ page { data { id } } page { hasNext } }';

  it('builds a selection once per (field nodes, document) and again for other nodes', () => {
    let builds = 0;
    const cache = new SelectionCache((sets) => {
      builds += 1;
      return { kind: Kind.SELECTION_SET, selections: sets.flatMap((s) => s.selections) } satisfies SelectionSetNode;
    });
    const { nodes, fragments } = selected(query, 'page');
    const first = cache.get(nodes, fragments);
    expect(cache.get([...nodes], fragments)).to.equal(first);
    expect(builds).to.equal(1);
    // The same first node with fewer siblings (an `@include` turned off) is another selection.
    expect(cache.get(nodes.slice(0, 1), fragments).selections).to.have.length(1);
    expect(builds).to.equal(2);
    expect(cache.get(selected(query, 'page').nodes, fragments)).to.not.equal(first);
    expect(builds).to.equal(3);
  });
});

describe('gateway.delegatedSelection over the composed supergraph', function () {
  this.timeout(30_000);
  let raw: GraphQLSchema;
  const pub = publicSchema();

  before(async () => {
    const composed = await composeSupergraph(
      SUBGRAPHS.map(({ name, proto }) => ({ name, proto, endpoint: '127.0.0.1:1' })),
    );
    raw = buildASTSchema(parse(composed.raw), { assumeValid: true, assumeValidSDL: true });
  });

  const rawRoot = (field: string) => {
    const route = ROUTES[field];
    if (!route) throw new Error(`no route ${field}`);
    const name = rawFieldName(route.service, route.method);
    const type = raw.getQueryType()?.getFields()[name]?.type ?? raw.getMutationType()?.getFields()[name]?.type;
    if (!type) throw new Error(`no raw field ${name}`);
    return type;
  };
  const publicRoot = (field: string) => {
    const type = pub.getQueryType()?.getFields()[field]?.type ?? pub.getMutationType()?.getFields()[field]?.type;
    if (!type) throw new Error(`no public field ${field}`);
    return type;
  };

  it('asks the inbox for a page of messages with only the selected fields, under the public names', () => {
    const { sets, fragments } = selected(
      '{ getMessages(chatId: "c") { data { _id text authorType createdAt } hasNext } }',
      'getMessages',
    );
    const selection = delegatedSelection(publicRoot('getMessages'), rawRoot('getMessages'), sets, fragments);
    expect(selection && print(selection)).to.equal(printed('{ data { _id text authorType createdAt } hasNext }'));
  });

  it('maps every field of every route that passes the service response through', () => {
    // A route without a `response` returns the service's message as it is: each public field must be a raw field
    // of the same name and shape, or the gateway would ask for it and answer null.
    const unmapped: string[] = [];
    for (const [field, route] of Object.entries(ROUTES)) {
      if (route.response) continue;
      const whole = wholeSelection(publicRoot(field));
      if (!whole) continue;
      if (!delegatedSelection(publicRoot(field), rawRoot(field), [whole], {})) unmapped.push(field);
    }
    expect(unmapped).to.deep.equal([]);
  });
});
