import { expect } from 'chai';
import { parse } from 'graphql';
import { ApiScope, MemberRole, OrgKind, PrincipalKind, newId, type Principal } from '@svc/kit';
import { authorize, isPublicOnly, rootFields } from '../src/auth/authorize';
import { MESH_ROOT, loadOperationsTable } from '../src/auth/operations-table';
import { publicSchema } from '../src/schema';

const table = loadOperationsTable();
const schema = publicSchema();

function key(scopes: ApiScope[], orgKind = OrgKind.STANDARD): Principal {
  return {
    kind: PrincipalKind.API_KEY,
    orgId: newId(),
    orgKind,
    keyId: newId(),
    memberId: '',
    role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
    scopes,
    sessionId: '',
    visitorContactId: '',
    visitorChannelId: '',
  };
}

const check = (principal: Principal, query: string, variables?: Record<string, unknown>) =>
  authorize(principal, parse(query), undefined, variables, schema, table, { introspection: true });

describe('gateway.authorize', () => {
  it('allows a root field whose scope the key holds', () => {
    expect(check(key([ApiScope.MESSAGES_READ]), '{ chat(chatId: "x") { _id } }')).to.equal(undefined);
  });

  it('refuses with 403 naming the missing scope', () => {
    expect(check(key([ApiScope.MESSAGES_READ]), 'mutation { closeChat(chatId: "x") { _id } }')).to.deep.include({
      status: 403,
      code: 'FORBIDDEN',
      scope: 'CONVERSATIONS_MANAGE',
    });
  });

  it('sees root fields hidden in fragments and inline fragments', () => {
    const viaFragment = 'mutation { ...M } fragment M on Mutation { closeChat(chatId: "x") { _id } }';
    const viaInline = 'mutation { ... on Mutation { closeChat(chatId: "x") { _id } } }';
    expect(check(key([ApiScope.MESSAGES_READ]), viaFragment)?.scope).to.equal('CONVERSATIONS_MANAGE');
    expect(check(key([ApiScope.MESSAGES_READ]), viaInline)?.scope).to.equal('CONVERSATIONS_MANAGE');
  });

  it('refuses dashboard-only operations to keys holding every scope', () => {
    const denial = check(key([ApiScope.TEAM_MANAGE, ApiScope.PII_READ]), '{ orgApiKeys { id } }');
    expect(denial?.code).to.equal('FORBIDDEN');
    expect(denial?.message).to.match(/dashboard/);
  });

  it('requires NOTES_WRITE when sendMessage posts a note, also through variables', () => {
    const sender = key([ApiScope.MESSAGES_SEND]);
    const query = 'mutation($i: CreateCombinedMessageInput!) { sendMessage(chatId: "x", input: $i) { _id } }';
    expect(check(sender, query, { i: { text: 'hi' } })).to.equal(undefined);
    expect(check(sender, query, { i: { text: 'hi', internal: true } })?.scope).to.equal('NOTES_WRITE');
  });

  it('denies PARTNER_ADMIN operations on a standard org even with the scope', () => {
    const standard = key([ApiScope.PARTNER_ADMIN]);
    // clientOrgs is a spec operation without a public field yet: the table still decides first
    expect(check(standard, '{ clientOrgs }')?.code).to.equal('FORBIDDEN');
  });

  it('lets only login through without credentials', () => {
    expect(isPublicOnly(parse('mutation { login(email: "a", password: "b") { token } }'), undefined, table)).to.equal(
      true,
    );
    expect(
      isPublicOnly(
        parse('mutation { login(email: "a", password: "b") { token } closeChat(chatId: "x") { _id } }'),
        undefined,
        table,
      ),
    ).to.equal(false);
    expect(isPublicOnly(parse('{ __typename }'), undefined, table)).to.equal(false);
  });
});

describe('gateway.operationsTable', () => {
  it('has the 168 rows of the spec plus the local rows (login, logout, dashboard-only operations)', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const local = fs
      .readFileSync(path.join(MESH_ROOT, 'operations.local.tsv'), 'utf8')
      .split('\n')
      .filter((line) => line.trim()).length;
    expect(table.size).to.equal(168 + local - 1);
    expect(table.get('createFlow')?.requirement).to.deep.equal({ kind: 'dashboard-only' });
    expect(table.get('sendMessage')?.requirement).to.deep.equal({ kind: 'scope', scope: 'MESSAGES_SEND' });
    expect(table.get('mintOrgApiKey')?.requirement).to.deep.equal({ kind: 'dashboard-only' });
    expect(table.get('clientOrgs')?.techProviderOnly).to.equal(true);
  });

  it('is a verbatim copy of the spec table when the spec is beside the checkout', async function () {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const spec = path.resolve(__dirname, '../../../../shared/spec/operations.tsv');
    if (!fs.existsSync(spec)) this.skip();
    expect(fs.readFileSync(path.resolve(__dirname, '../../operations.tsv'), 'utf8')).to.equal(
      fs.readFileSync(spec, 'utf8'),
    );
  });

  it('covers every root field of the public schema', () => {
    const fields = [
      ...Object.keys(schema.getQueryType()?.getFields() ?? {}),
      ...Object.keys(schema.getMutationType()?.getFields() ?? {}),
    ];
    expect(fields.filter((f) => !table.has(f))).to.deep.equal([]);
  });
});

describe('gateway.rootFields', () => {
  it('walks a document once per operation name: a repeated request gets the same answer object', () => {
    const document = parse('query A { chat(chatId: "x") { _id } } query B { inboxCounts { all } }');
    const a = rootFields(document, 'A');
    expect(a?.fields.map((f) => f.name.value)).to.deep.equal(['chat']);
    expect(rootFields(document, 'A')).to.equal(a);
    expect(rootFields(document, 'B')?.fields.map((f) => f.name.value)).to.deep.equal(['inboxCounts']);
    expect(rootFields(document, undefined)).to.equal(undefined); // two operations and no name: none is chosen
    expect(rootFields(document, 'C')).to.equal(undefined);
  });
});
