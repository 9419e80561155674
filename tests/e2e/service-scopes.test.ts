import { expect } from 'chai';
import { getNamedType, getNullableType, isListType, isScalarType, type GraphQLInputType } from 'graphql';
import { credentials, loadPackageDefinition, type Client, type Metadata, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { type ApiScope, MemberRole, OrgKind, PrincipalKind, newId, type Principal } from '@svc/kit';
import { PROTO_ROOT } from '@svc/proto/protos';
import { ROUTES, SUBGRAPHS, loadOperationsTable, publicSchema, type Route } from '@svc/gateway';
import { argumentValues, type ValuePath } from '../support/argument-values';
import { argumentScopeOverride, orgKindOf, scopeOf, scopesBut } from '../support/scope-rules';
import { StackHarness } from '../support/stack-harness';

/**
 * The services' own scope checks (defence in depth behind the gateway) against operations.tsv: every route's gRPC
 * method, called directly as the gateway would call it (arguments generated from the public schema, reshaped by the
 * route), accepts a key principal holding exactly the table's scope and refuses one holding every other scope,
 * naming it. Argument scopes (the `also` column) likewise. Generated from the route table: nothing to edit here.
 */

type UnaryCall = (request: unknown, metadata: Metadata, callback: (error: ServiceError | null) => void) => void;

type Fill = (path: ValuePath, type: GraphQLInputType) => unknown;

/** Values no operation accepts: `text` for every string and id (empty, malformed, too long), -1, no date. */
function invalid(text: string): Fill {
  return (_path, type) => {
    const named = getNamedType(type);
    if (!isScalarType(named) || isListType(getNullableType(type))) return undefined;
    if (named.name === 'Int' || named.name === 'Float') return -1;
    if (named.name === 'DateTime') return 'not a date';
    if (named.name === 'String' || named.name === 'ID') return text;
    return undefined;
  };
}

describe('Service scope checks agree with operations.tsv (each route called over gRPC)', function () {
  const harness = new StackHarness();
  const table = loadOperationsTable();
  const schema = publicSchema();
  const packages = loadPackageDefinition(
    loadSync(
      SUBGRAPHS.map((s) => s.proto),
      { includeDirs: [PROTO_ROOT], longs: String, enums: String, defaults: true },
    ),
  );
  const clients = new Map<string, Client>();
  const orgs = new Map<OrgKind, string>();
  const routed = Object.entries(ROUTES).filter(([operation]) => scopeOf(table.get(operation)));

  function client(route: Route): Record<string, UnaryCall> {
    const subgraph = SUBGRAPHS.find((s) => s.name === route.service);
    const app = harness.stack.apps.find((a) => a.spec.name === subgraph?.app);
    if (!subgraph || !app) throw new Error(`no service for ${route.service}`);
    if (!clients.has(subgraph.name)) {
      const Service = subgraph.grpcService
        .split('.')
        .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], packages);
      const Constructor = Service as new (
        address: string,
        creds: ReturnType<typeof credentials.createInsecure>,
      ) => Client;
      clients.set(subgraph.name, new Constructor(`127.0.0.1:${app.grpcPort}`, credentials.createInsecure()));
    }
    return clients.get(subgraph.name) as unknown as Record<string, UnaryCall>;
  }

  /** The gRPC status the route's method answers a key of `scopes` with (0 when it succeeds). */
  async function callAs(operation: string, scopes: ApiScope[], overrides: Record<string, unknown> = {}, fill?: Fill) {
    const route = ROUTES[operation] as Route;
    const rule = table.get(operation);
    const field = (rule?.kind === 'Q' ? schema.getQueryType() : schema.getMutationType())?.getFields()[operation];
    if (!field) throw new Error(`${operation} is routed but not in the public schema`);
    const args = argumentValues(field, { overrides, fill }).values;
    const request = route.request ? await route.request(args) : args;
    const principal: Principal = {
      kind: PrincipalKind.API_KEY,
      orgId: orgs.get(orgKindOf(rule)) as string,
      orgKind: orgKindOf(rule),
      keyId: newId(),
      memberId: '',
      role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
      scopes,
      sessionId: '',
      visitorContactId: '',
      visitorChannelId: '',
    };
    const audience = SUBGRAPHS.find((s) => s.name === route.service)?.app ?? route.service;
    const metadata = await harness.stack.gatewaySigner.metadata(principal, audience);
    const method = client(route)[route.method];
    if (!method) throw new Error(`${route.service} has no method ${route.method}`);
    return new Promise<{ code: number; details: string }>((resolve) =>
      method.call(client(route), request, metadata, (error) =>
        resolve({ code: error?.code ?? 0, details: error?.details ?? '' }),
      ),
    );
  }

  const missingScope = (answer: { code: number; details: string }) =>
    answer.code === 7 && /missing scope/.test(answer.details) ? answer.details : undefined;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    orgs.set(OrgKind.STANDARD, (await harness.newOrg('Standard')).id);
    orgs.set(OrgKind.TECH_PROVIDER, (await harness.newOrg('Provider', OrgKind.TECH_PROVIDER)).id);
  });

  after(async () => {
    for (const c of clients.values()) c.close();
    await harness.stop();
  });

  it('routes operations that name a scope', () => expect(routed.length).to.be.greaterThan(50));

  it('accepts a principal holding exactly the scope of the table', async function () {
    this.timeout(60_000);
    const refused: string[] = [];
    for (const [operation] of routed) {
      const missing = missingScope(await callAs(operation, [scopeOf(table.get(operation)) as ApiScope]));
      if (missing) refused.push(`${operation}: ${missing}`);
    }
    expect(refused).to.deep.equal([]);
  });

  it('refuses a principal holding every other scope, naming the scope of the table', async function () {
    this.timeout(60_000);
    const wrong: string[] = [];
    for (const [operation] of routed) {
      const rule = table.get(operation);
      const scope = scopeOf(rule) as ApiScope;
      const answer = await callAs(operation, scopesBut(scope, orgKindOf(rule)));
      if (missingScope(answer) !== `missing scope ${scope}`)
        wrong.push(`${operation}: ${answer.code} ${answer.details}`);
    }
    expect(wrong).to.deep.equal([]);
  });

  it('refuses a key without any scope before looking at its arguments: invalid ones still answer the missing scope', async function () {
    this.timeout(60_000);
    const wrong: string[] = [];
    for (const text of ['', ' !', 'x'.repeat(5_000)])
      for (const [operation] of routed) {
        const scope = scopeOf(table.get(operation)) as ApiScope;
        const answer = await callAs(operation, [], {}, invalid(text));
        if (missingScope(answer) !== `missing scope ${scope}`)
          wrong.push(`${operation} (${JSON.stringify(text.slice(0, 3))}): ${answer.code} ${answer.details}`);
      }
    expect(wrong).to.deep.equal([]);
  });

  it('applies the argument scopes of the `also` column', async function () {
    const wrong: string[] = [];
    const withArgument = routed.filter(([operation]) => table.get(operation)?.argumentScope);
    for (const [operation] of withArgument) {
      const rule = table.get(operation);
      const extra = rule?.argumentScope?.scope as ApiScope;
      const overrides = argumentScopeOverride(rule);
      const both = await callAs(operation, [scopeOf(rule) as ApiScope, extra], overrides);
      if (missingScope(both)) wrong.push(`${operation} with ${extra}: ${both.details}`);
      const without = await callAs(operation, scopesBut(extra), overrides);
      if (missingScope(without) !== `missing scope ${extra}`)
        wrong.push(`${operation} without ${extra}: ${without.details}`);
    }
    expect(withArgument.length).to.be.greaterThan(0);
    expect(wrong).to.deep.equal([]);
  });
});
