import { expect } from 'chai';
import {
  buildClientSchema,
  buildSchema,
  execute,
  getIntrospectionQuery,
  isInputObjectType,
  isObjectType,
  parse,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLField,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { publicExecutableSchema, usePublicExecution } from '../src/public-execution';
import { publicSchema } from '../src/schema';
import { SUBGRAPHS } from '../src/subgraphs';
import { fakeServices, gatewayOn, post } from './support/fake-services';

type ExecuteFn = (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult>;

/** What the plugin's onExecute does with `query`: the execute function it sets, if any. */
function executeFnSetFor(plugin: GatewayPlugin, query: string): ExecuteFn | undefined {
  let set: ExecuteFn | undefined;
  const onExecute = plugin.onExecute as (payload: unknown) => void;
  onExecute({
    args: { document: parse(query), operationName: undefined },
    setExecuteFn: (fn: ExecuteFn) => (set = fn),
  });
  return set;
}

const signature = (field: GraphQLField<unknown, unknown>) =>
  `${String(field.type)}(${field.args.map((arg) => `${arg.name}: ${String(arg.type)}`).join(', ')})`;

describe('gateway: operations execute on the public schema (decision 0006, amendment of 2026-12-01)', function () {
  this.timeout(60_000);

  it('executes an operation on the schema it was given, whatever schema the gateway validated it against', async () => {
    const executed = buildSchema('type Query { answer: String }');
    const execute = executeFnSetFor(usePublicExecution(executed), '{ answer }');
    expect(execute).to.be.a('function');
    const served = buildSchema('type Query { answer: String other: Int }');
    const result = await execute?.({
      schema: served,
      document: parse('{ answer }'),
      rootValue: { answer: 'from the public schema' },
    });
    expect(result).to.deep.equal({ data: { answer: 'from the public schema' } });
  });

  it('leaves introspection to the gateway, alone or next to other fields', () => {
    const plugin = usePublicExecution(buildSchema('type Query { answer: String }'));
    expect(executeFnSetFor(plugin, '{ __schema { queryType { name } } }')).to.equal(undefined);
    expect(executeFnSetFor(plugin, '{ answer __type(name: "Query") { name } }')).to.equal(undefined);
    expect(executeFnSetFor(plugin, 'query Q { ...F } fragment F on Query { __schema { types { name } } }')).to.equal(
      undefined,
    );
    expect(executeFnSetFor(plugin, '{ __typename answer }')).to.be.a('function');
  });

  it('resolves the public schema with the route resolvers, and leaves the given schema as it was', async () => {
    const schema = publicSchema();
    const executable = publicExecutableSchema(schema, {
      resolvers: { Query: { label: (_root: unknown, args: { labelId: string }) => ({ _id: args.labelId }) } },
      close: () => undefined,
    });
    const result = await execute({ schema: executable, document: parse('{ label(labelId: "l1") { _id } }') });
    expect(result).to.deep.equal({ data: { label: { _id: 'l1' } } });
    expect(schema.getQueryType()?.getFields().label?.resolve).to.equal(undefined);
  });

  describe('against the schema the gateway serves', () => {
    let services: Awaited<ReturnType<typeof fakeServices>>;
    let gateway: Awaited<ReturnType<typeof gatewayOn>>;
    let served: GraphQLSchema;

    before(async () => {
      services = await fakeServices();
      const policy = { deadlineMs: 5_000, retryAttempts: 1, uploadDeadlineMs: 5_000 };
      gateway = await gatewayOn(Object.fromEntries(SUBGRAPHS.map(({ app }) => [app, services.address])), policy);
      const body = (await post(gateway.url, getIntrospectionQuery())) as unknown as { data: IntrospectionQuery };
      served = buildClientSchema(body.data);
    });

    after(async () => {
      await gateway.stop();
      services.stop();
    });

    it('has every type, field and argument of the public schema, with the same types (no drift)', () => {
      const schema = publicSchema();
      const differences: string[] = [];
      for (const type of Object.values(schema.getTypeMap())) {
        if (type.name.startsWith('__')) continue;
        const other = served.getType(type.name);
        if (!other || other.constructor !== type.constructor) {
          differences.push(`${type.name}: ${other ? 'another kind' : 'missing'}`);
          continue;
        }
        if (isObjectType(type) && isObjectType(other)) {
          const fields = other.getFields();
          for (const field of Object.values(type.getFields())) {
            const servedField = fields[field.name];
            if (!servedField || signature(servedField) !== signature(field))
              differences.push(`${type.name}.${field.name}: ${servedField ? signature(servedField) : 'missing'}`);
          }
          const extra = Object.keys(fields).filter((name) => !type.getFields()[name]);
          if (extra.length) differences.push(`${type.name} also has ${extra.join(', ')}`);
        }
        if (isInputObjectType(type) && isInputObjectType(other)) {
          const fields = other.getFields();
          for (const field of Object.values(type.getFields())) {
            if (String(fields[field.name]?.type) !== String(field.type)) differences.push(`${type.name}.${field.name}`);
          }
        }
      }
      expect(differences).to.deep.equal([]);
    });

    it('answers a query and its __typename through the public execution', async () => {
      expect(await post(gateway.url, '{ __typename }')).to.deep.equal({ data: { __typename: 'Query' } });
    });
  });
});
