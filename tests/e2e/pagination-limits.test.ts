import { expect } from 'chai';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isNonNullType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { newId } from '@svc/kit';
import { publicSchema } from '@svc/gateway';
import { StackHarness, type TestOrg } from '../support/stack-harness';

/** The page-size fields of the public pagination inputs (`PaginateMessagesInput.limit`, `….first`). */
const PAGE_SIZE_FIELDS = ['limit', 'first'];
const OUT_OF_RANGE = [0, -1, 101];

interface PagedOperation {
  kind: 'query' | 'mutation';
  field: GraphQLField<unknown, unknown>;
  /** The pagination argument and its page-size field, e.g. `input.limit`. */
  path: string;
  argument: string;
  sizeField: string;
}

/** Every root field taking a pagination input, read from the public schema so a new one is covered unasked. */
function pagedOperations(): PagedOperation[] {
  const schema = publicSchema();
  const found: PagedOperation[] = [];
  for (const [kind, type] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const)
    for (const field of Object.values(type?.getFields() ?? {}))
      for (const argument of field.args) {
        const input = getNamedType(argument.type);
        if (!isInputObjectType(input)) continue;
        const sizeField = PAGE_SIZE_FIELDS.find((name) => input.getFields()[name]);
        if (sizeField)
          found.push({ kind, field, argument: argument.name, sizeField, path: `${argument.name}.${sizeField}` });
      }
  return found;
}

/** A value of the right type for a required argument: ids of nothing (the limit is checked before any lookup). */
function sample(type: GraphQLInputType): unknown {
  const named = getNamedType(type);
  if (isEnumType(named)) return named.getValues()[0]?.value;
  if (isInputObjectType(named))
    return Object.fromEntries(
      Object.values(named.getFields())
        .filter((f) => isNonNullType(f.type) && f.defaultValue === undefined)
        .map((f) => [f.name, sample(f.type)]),
    );
  if (isScalarType(named) && named.name === 'Int') return 1;
  if (isScalarType(named) && named.name === 'Boolean') return false;
  return newId();
}

function request(operation: PagedOperation, size: number) {
  const args = operation.field.args.filter(
    (a: GraphQLArgument) => a.name === operation.argument || (isNonNullType(a.type) && a.defaultValue === undefined),
  );
  const variables = Object.fromEntries(
    args.map((a) => [a.name, a.name === operation.argument ? { [operation.sizeField]: size } : sample(a.type)]),
  );
  const declared = args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
  const passed = args.map((a) => `${a.name}: $${a.name}`).join(', ');
  return {
    query: `${operation.kind}(${declared}) { ${operation.field.name}(${passed}) { __typename } }`,
    variables,
  };
}

describe('Pagination limits (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;

  before(async () => {
    await harness.start();
    org = await harness.newOrg();
  });
  after(() => harness.stop());

  const operations = pagedOperations();

  it('finds the pagination inputs of the inbox, contacts, flows and webhook history', () => {
    expect(operations.map((o) => o.field.name)).to.include.members([
      'getMessages',
      'searchConversations',
      'contactsApi',
      'flowRuns',
      'inboundConnectionHistory',
    ]);
  });

  for (const operation of operations)
    it(`${operation.field.name}: ${operation.path} of ${OUT_OF_RANGE.join(', ')} is BAD_USER_INPUT naming it`, async () => {
      for (const size of OUT_OF_RANGE) {
        const { query, variables } = request(operation, size);
        const response = await harness.graphql(query, variables, org.sessionToken);
        const error = response.body.errors?.[0];
        expect(error?.extensions?.code, `${size}: ${JSON.stringify(response.body)}`).to.equal('BAD_USER_INPUT');
        expect(error?.extensions?.field, `${size}: ${JSON.stringify(response.body)}`).to.equal(operation.path);
      }
    });
});
