import { expect } from 'chai';
import {
  buildClientSchema,
  getIntrospectionQuery,
  type GraphQLField,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { ALL_SCOPES, ApiScope, OrgKind } from '@svc/kit';
import { loadOperationsTable, type OperationRule } from '@svc/gateway';
import { operationCall } from '../support/argument-values';
import { SAMPLES } from '../support/media-samples';
import { StackHarness, type GraphQLResponse, type TestOrg } from '../support/stack-harness';

/**
 * Spec 4.2 as a property of the running stack, generated from the public schema's introspection and operations.tsv
 * (no list of operations here): for every exposed root operation, a key holding exactly the table's scope is never
 * refused for a scope reason, and a key holding every scope but that one is refused naming it; argument scopes (the
 * `also` column) likewise with the argument that needs them; dashboard-only and session operations refuse a key
 * holding every scope. Arguments are generated from their types (random ids, so most calls end in NOT_FOUND or
 * BAD_USER_INPUT: any answer but a refusal is fine), uploads travel as GraphQL multipart requests.
 */

type Operation = { type: 'query' | 'mutation'; field: GraphQLField<unknown, unknown>; rule: OperationRule | undefined };
type Caller = { org: TestOrg; scopes: ApiScope[] } | { session: string };

/**
 * The refusal a response carries: 401, or a FORBIDDEN (gateway and services both name the scope in
 * `extensions.scope` when a scope is the reason); undefined when it was not refused.
 */
function refusal(response: GraphQLResponse): { code: string; scope?: string; message: string } | undefined {
  const error = response.body.errors?.find((e) => ['FORBIDDEN', 'UNAUTHENTICATED'].includes(e.extensions?.code ?? ''));
  if (!error && response.status !== 401 && response.status !== 403) return undefined;
  return {
    code: error?.extensions?.code ?? String(response.status),
    ...(error?.extensions?.scope ? { scope: error.extensions.scope } : {}),
    message: error?.message ?? JSON.stringify(response.body),
  };
}

/** A refusal for want of a scope or of credentials; other FORBIDDENs (e.g. a key may not promote an OWNER) are not. */
function scopeRefusal(response: GraphQLResponse): ReturnType<typeof refusal> {
  const outcome = refusal(response);
  return outcome && (outcome.code !== 'FORBIDDEN' || outcome.scope !== undefined) ? outcome : undefined;
}

describe('Scope matrix: operations.tsv × the public schema (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  const table = loadOperationsTable();
  const keys = new Map<string, string>();
  let standard: TestOrg;
  let provider: TestOrg;
  let operations: Operation[];

  /** A key of `org` holding exactly `scopes`, minted once. */
  async function keyOf(org: TestOrg, scopes: ApiScope[]): Promise<string> {
    const id = `${org.id}:${[...scopes].sort().join(',')}`;
    if (!keys.has(id)) keys.set(id, (await org.mintKey(scopes, id.slice(0, 100))).key);
    return keys.get(id) as string;
  }

  async function freshSession(org: TestOrg): Promise<string> {
    const login = await harness.graphql<{ login: { token: string } }>(
      'mutation($e: String!, $p: String!) { login(email: $e, password: $p) { token } }',
      { e: org.ownerEmail, p: org.ownerPassword },
    );
    const token = login.body.data?.login.token;
    if (!token) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
    return token;
  }

  async function call(op: Operation, caller: Caller, overrides: Record<string, unknown> = {}) {
    const token = 'session' in caller ? caller.session : await keyOf(caller.org, caller.scopes);
    const { query, variables, files } = operationCall(op.type, op.field, { overrides });
    if (files.length === 0) return harness.graphql(query, variables, token);
    const upload = { bytes: SAMPLES.png, name: 'matrix.png', type: 'image/png' };
    return harness.upload(query, variables, Object.fromEntries(files.map((path) => [path, upload])), token);
  }

  /** Every scope an org of `kind` can hold but `scope`. */
  const allBut = (scope: string, kind = OrgKind.STANDARD) =>
    ALL_SCOPES.filter((s) => s !== scope && (kind === OrgKind.TECH_PROVIDER || s !== ApiScope.PARTNER_ADMIN));
  const scoped = (kind: 'scope' | 'other') =>
    operations.filter((op) => (op.rule?.requirement.kind === 'scope') === (kind === 'scope'));
  const scopeOf = (op: Operation) => (op.rule?.requirement as { scope: ApiScope }).scope;
  const argumentOverride = (op: Operation) => {
    const extra = op.rule?.argumentScope;
    return extra ? { [extra.path.join('.')]: extra.value } : {};
  };

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    standard = await harness.newOrg('Standard');
    provider = await harness.newOrg('Provider', OrgKind.TECH_PROVIDER);
    const introspection = await harness.graphql<IntrospectionQuery>(
      getIntrospectionQuery(),
      {},
      await keyOf(standard, [ApiScope.MESSAGES_READ]),
    );
    if (!introspection.body.data) throw new Error(`introspection failed: ${JSON.stringify(introspection.body)}`);
    const schema: GraphQLSchema = buildClientSchema(introspection.body.data);
    operations = (['query', 'mutation'] as const).flatMap((type) =>
      Object.values((type === 'query' ? schema.getQueryType() : schema.getMutationType())?.getFields() ?? {}).map(
        (field) => ({ type, field, rule: table.get(field.name) }),
      ),
    );
  });

  after(async () => harness.stop());

  it('finds a row of operations.tsv for every exposed root operation, of the same kind', () => {
    expect(operations.length).to.be.greaterThan(50);
    const orphans = operations.filter((op) => op.rule?.kind !== (op.type === 'query' ? 'Q' : 'M'));
    expect(orphans.map((op) => op.field.name)).to.deep.equal([]);
  });

  it('never refuses a key holding exactly the scope of the table (on a TECH_PROVIDER org for PARTNER_ADMIN rows)', async function () {
    this.timeout(120_000);
    const refused: string[] = [];
    for (const op of scoped('scope')) {
      const org = op.rule?.techProviderOnly ? provider : standard;
      const outcome = scopeRefusal(await call(op, { org, scopes: [scopeOf(op)] }));
      if (outcome) refused.push(`${op.field.name} (${scopeOf(op)}): ${outcome.code} ${outcome.message}`);
    }
    expect(refused).to.deep.equal([]);
  });

  it('refuses a key holding every scope but that one, naming it', async function () {
    this.timeout(120_000);
    const wrong: string[] = [];
    for (const op of scoped('scope')) {
      const kind = op.rule?.techProviderOnly ? OrgKind.TECH_PROVIDER : OrgKind.STANDARD;
      const org = kind === OrgKind.TECH_PROVIDER ? provider : standard;
      const response = await call(op, { org, scopes: allBut(scopeOf(op), kind) });
      const outcome = refusal(response);
      if (response.status !== 403 || outcome?.code !== 'FORBIDDEN' || outcome.scope !== scopeOf(op))
        wrong.push(
          `${op.field.name}: expected 403 naming ${scopeOf(op)}, got ${response.status} ${JSON.stringify(outcome)}`,
        );
    }
    expect(wrong).to.deep.equal([]);
  });

  it('applies the argument scopes of the `also` column exactly when the argument holds the value', async function () {
    this.timeout(60_000);
    const wrong: string[] = [];
    const withArgument = scoped('scope').filter((op) => op.rule?.argumentScope);
    for (const op of withArgument) {
      const extra = op.rule?.argumentScope as NonNullable<OperationRule['argumentScope']>;
      const both = await call(
        op,
        { org: standard, scopes: [scopeOf(op), extra.scope as ApiScope] },
        argumentOverride(op),
      );
      if (scopeRefusal(both)) wrong.push(`${op.field.name} with ${extra.scope}: ${JSON.stringify(refusal(both))}`);
      const without = refusal(await call(op, { org: standard, scopes: allBut(extra.scope) }, argumentOverride(op)));
      if (without?.code !== 'FORBIDDEN' || without.scope !== extra.scope)
        wrong.push(`${op.field.name} without ${extra.scope}: ${JSON.stringify(without)}`);
    }
    expect(withArgument.length, 'operations.tsv names argument scopes of exposed operations').to.be.greaterThan(0);
    expect(wrong).to.deep.equal([]);
  });

  it('refuses PARTNER_ADMIN operations to a standard org holding every scope, and accepts the provider owner', async function () {
    this.timeout(60_000);
    const wrong: string[] = [];
    const ownerSession = await freshSession(provider);
    for (const op of scoped('scope').filter((o) => o.rule?.techProviderOnly)) {
      const outsider = refusal(await call(op, { org: standard, scopes: allBut(ApiScope.PARTNER_ADMIN) }));
      if (outsider?.code !== 'FORBIDDEN') wrong.push(`${op.field.name} on a standard org: ${JSON.stringify(outsider)}`);
      const owner = refusal(await call(op, { session: ownerSession }));
      if (owner) wrong.push(`${op.field.name} as the provider's owner: ${JSON.stringify(owner)}`);
    }
    expect(wrong).to.deep.equal([]);
  });

  it('refuses dashboard-only and session operations to a key holding every scope, and accepts a member session', async function () {
    this.timeout(60_000);
    const wrong: string[] = [];
    const others = scoped('other').filter((op) => op.rule?.requirement.kind !== 'public');
    for (const op of others) {
      const key = refusal(await call(op, { org: provider, scopes: allBut('', OrgKind.TECH_PROVIDER) }));
      if (key?.code !== 'FORBIDDEN') wrong.push(`${op.field.name} with a key: ${JSON.stringify(key)}`);
    }
    for (const op of others) {
      // `logout` ends the session it is given: it gets one of its own.
      const session = op.rule?.requirement.kind === 'session' ? await freshSession(standard) : standard.sessionToken;
      const member = refusal(await call(op, { session }));
      if (member) wrong.push(`${op.field.name} with a member session: ${JSON.stringify(member)}`);
    }
    expect(others.length).to.be.greaterThan(0);
    expect(wrong).to.deep.equal([]);
  });
});
