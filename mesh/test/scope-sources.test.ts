import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { GraphQLBoolean, getNullableType, isInputObjectType, parse, type GraphQLInputType } from 'graphql';
import { ApiScope, MemberRole, OrgKind, PrincipalKind, newId, type Principal } from '@svc/kit';
import { authorize } from '../src/auth/authorize';
import { MESH_ROOT, loadOperationsTable } from '../src/auth/operations-table';
import { DEFAULT_COSTS } from '../src/plugins/cost-budget-plugin';
import { publicSchema } from '../src/schema';

/* operations.tsv is the one source of scope facts (docs/decisions/0040-scopes-single-source.md); these check the rest. */

const schema = publicSchema();
const table = loadOperationsTable();
const rootField = (kind: 'Q' | 'M', name: string) =>
  (kind === 'Q' ? schema.getQueryType() : schema.getMutationType())?.getFields()[name];

function key(scopes: ApiScope[]): Principal {
  return {
    kind: PrincipalKind.API_KEY,
    orgId: newId(),
    orgKind: OrgKind.STANDARD,
    keyId: newId(),
    memberId: '',
    role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
    scopes,
    sessionId: '',
    visitorContactId: '',
    visitorChannelId: '',
  };
}

/** The mesh's tables with `row` appended to operations.local.tsv (a later row of an operation replaces its earlier one). */
function tableWith(row: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'operations-'));
  try {
    fs.copyFileSync(path.join(MESH_ROOT, 'operations.tsv'), path.join(dir, 'operations.tsv'));
    const local = fs.readFileSync(path.join(MESH_ROOT, 'operations.local.tsv'), 'utf8').trimEnd();
    fs.writeFileSync(path.join(dir, 'operations.local.tsv'), `${local}\n${row}\n`);
    return loadOperationsTable(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('scope facts agree with operations.tsv', () => {
  describe('argument scopes (the `also` column)', () => {
    it('are read from the table: a condition written there is enforced with no code change', () => {
      const withRule = tableWith(
        'blockConversation\tM\tCONVERSATIONS_MANAGE\tblock\tCONTACTS_ERASE when blocked is true',
      );
      const query = 'mutation($b: Boolean!) { blockConversation(conversationId: "x", blocked: $b) }';
      const check = (blocked: boolean) =>
        authorize(key([ApiScope.CONVERSATIONS_MANAGE]), parse(query), undefined, { b: blocked }, schema, withRule, {
          introspection: true,
        });
      expect(check(false)).to.equal(undefined);
      expect(check(true)).to.deep.include({ code: 'FORBIDDEN', scope: 'CONTACTS_ERASE' });
    });

    it('refuses to load a condition naming a scope in any other form', () => {
      expect(() => tableWith('closeChat\tM\tCONVERSATIONS_MANAGE\tclose\tCONTACTS_ERASE if the chat is old')).to.throw(
        /unrecognised "also" condition/,
      );
    });

    it('name a Boolean argument or input field of the public schema', () => {
      const rules = [...table.values()].filter((rule) => rule.argumentScope);
      expect(rules.map((rule) => rule.operation)).to.have.members(['sendMessage', 'apiDeleteConversation']);
      for (const rule of rules) {
        const [argument, ...fields] = rule.argumentScope?.path ?? [];
        let type: GraphQLInputType | undefined = rootField(rule.kind, rule.operation)?.args.find(
          (a) => a.name === argument,
        )?.type;
        for (const name of fields) {
          const named = type && getNullableType(type);
          type = isInputObjectType(named) ? named.getFields()[name]?.type : undefined;
        }
        expect(type && getNullableType(type), `${rule.operation}: ${rule.argumentScope?.path.join('.')}`).to.equal(
          GraphQLBoolean,
        );
      }
    });
  });

  describe('the cost table', () => {
    it('prices only MESSAGES_READ queries of the table that the public schema exposes (spec 8: expensive reads)', () => {
      for (const operation of Object.keys(DEFAULT_COSTS)) {
        const rule = table.get(operation);
        expect(rule?.kind, operation).to.equal('Q');
        expect(rule?.requirement, operation).to.deep.equal({ kind: 'scope', scope: ApiScope.MESSAGES_READ });
        expect(rootField('Q', operation), operation).to.not.equal(undefined);
      }
    });
  });
});
