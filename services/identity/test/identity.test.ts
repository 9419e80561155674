import { expect } from 'chai';
import { status, type Metadata } from '@grpc/grpc-js';
import {
  ApiScope,
  MemberRole,
  OrgKind,
  PrincipalKind,
  dropTestDatabase,
  eventually,
  grpcClient,
  anonymousPrincipal,
  systemPrincipal,
  testEnv,
  unary,
  type Principal,
  rejection,
  callerMetadata,
} from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { IdentityApp, MEMBERS_TOPIC, identityConfig } from '../src';

describe('IdentityService', () => {
  let app: IdentityApp;
  let client: IdentityServiceClient;
  let system: Metadata;
  let anonymous: Metadata;
  const as = (principal: Principal) => callerMetadata(principal, 'identity');

  before(async () => {
    app = new IdentityApp(identityConfig(testEnv('identity')));
    await app.start();
    client = grpcClient(IdentityServiceClient, `127.0.0.1:${app.grpcPort}`);
    system = await as(systemPrincipal());
    anonymous = await as(anonymousPrincipal());
  });

  after(async () => {
    client.close();
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  async function ownerSession(kind = OrgKind.STANDARD) {
    const email = `owner-${Math.random().toString(36).slice(2)}@example.com`;
    const created = await app.createOrg({ name: 'Acme', kind, owner: { email, name: 'Olive Owner' } });
    const session = await unary(
      client.login.bind(client),
      { email, password: created.oneTimePassword ?? '' },
      anonymous,
    );
    const principal = await unary(
      client.authenticate.bind(client),
      { credential: session.token, actAsOrgId: '' },
      system,
    );
    return { created, session, principal };
  }

  describe('IdentityService.Login', () => {
    it('returns a session token for the right password', async () => {
      const { session, created } = await ownerSession();
      expect(session.token).to.match(/^sess_[0-9a-f]{24}_/);
      expect(session.org?._id).to.equal(created.org.id);
      expect(session.member?.role).to.equal(MemberRole.OWNER);
    });

    it('refuses a wrong password with UNAUTHENTICATED', async () => {
      const { created } = await ownerSession();
      const error = await rejection(
        unary(client.login.bind(client), { email: created.owner.email, password: 'wrong-password-123' }, anonymous),
      );
      expect(error.code).to.equal(status.UNAUTHENTICATED);
    });

    it('is callable only without credentials (ANONYMOUS principal, passed on by the gateway)', async () => {
      const { principal, created } = await ownerSession();
      const error = await rejection(
        unary(client.login.bind(client), { email: created.owner.email, password: 'x' }, as(principal)),
      );
      expect(error.code).to.equal(status.PERMISSION_DENIED);
    });
  });

  describe('IdentityService.Authenticate', () => {
    it("resolves a session to a member principal with the role's scopes", async () => {
      const { principal, created } = await ownerSession();
      expect(principal.kind).to.equal(PrincipalKind.MEMBER_SESSION);
      expect(principal.orgId).to.equal(created.org.id);
      expect(principal.scopes).to.include(ApiScope.PII_READ);
      expect(principal.scopes).not.to.include(ApiScope.PARTNER_ADMIN);
    });

    it('refuses malformed and unknown credentials', async () => {
      for (const credential of ['', 'svc_nope', `svc_${'0'.repeat(24)}_${'a'.repeat(43)}`]) {
        const error = await rejection(unary(client.authenticate.bind(client), { credential, actAsOrgId: '' }, system));
        expect(error.code, credential).to.equal(status.UNAUTHENTICATED);
      }
    });

    it('ends a session on logout', async () => {
      const { session, principal } = await ownerSession();
      await unary(client.logout.bind(client), {}, as(principal));
      const error = await rejection(
        unary(client.authenticate.bind(client), { credential: session.token, actAsOrgId: '' }, system),
      );
      expect(error.code).to.equal(status.UNAUTHENTICATED);
    });
  });

  describe('IdentityService.MintOrgApiKey', () => {
    it('shows the key once and authenticates it with exactly its scopes', async () => {
      const { principal } = await ownerSession();
      const minted = await unary(
        client.mintOrgApiKey.bind(client),
        { name: 'ci', scopes: [ApiScope.MESSAGES_READ] },
        as(principal),
      );
      expect(minted.key).to.match(/^svc_[0-9a-f]{24}_[A-Za-z0-9_-]{43}$/);
      const listed = await unary(client.listOrgApiKeys.bind(client), {}, as(principal));
      expect(listed.keys.find((k) => k.id === minted.id)?.key).to.equal(undefined);
      const keyPrincipal = await unary(
        client.authenticate.bind(client),
        { credential: minted.key ?? '', actAsOrgId: '' },
        system,
      );
      expect(keyPrincipal.kind).to.equal(PrincipalKind.API_KEY);
      expect(keyPrincipal.scopes).to.deep.equal([ApiScope.MESSAGES_READ]);
    });

    it('refuses a key minting, listing or revoking keys', async () => {
      const { principal } = await ownerSession();
      const minted = await unary(
        client.mintOrgApiKey.bind(client),
        { name: 'k', scopes: [ApiScope.TEAM_MANAGE] },
        as(principal),
      );
      const keyPrincipal = await unary(
        client.authenticate.bind(client),
        { credential: minted.key ?? '', actAsOrgId: '' },
        system,
      );
      for (const call of [
        unary(client.mintOrgApiKey.bind(client), { name: 'wider', scopes: [ApiScope.PII_READ] }, as(keyPrincipal)),
        unary(client.listOrgApiKeys.bind(client), {}, as(keyPrincipal)),
        unary(client.revokeOrgApiKey.bind(client), { keyId: minted.id }, as(keyPrincipal)),
      ]) {
        expect((await rejection(call)).code).to.equal(status.PERMISSION_DENIED);
      }
    });

    it('refuses PARTNER_ADMIN on a standard org', async () => {
      const { principal } = await ownerSession();
      const error = await rejection(
        unary(client.mintOrgApiKey.bind(client), { name: 'p', scopes: [ApiScope.PARTNER_ADMIN] }, as(principal)),
      );
      expect(error.code).to.equal(status.INVALID_ARGUMENT);
    });
  });

  describe('IdentityService.RevokeOrgApiKey', () => {
    it('makes the key fail authentication at once', async () => {
      const { principal } = await ownerSession();
      const minted = await unary(
        client.mintOrgApiKey.bind(client),
        { name: 'k', scopes: [ApiScope.MESSAGES_READ] },
        as(principal),
      );
      const revoked = await unary(client.revokeOrgApiKey.bind(client), { keyId: minted.id }, as(principal));
      expect(revoked.revokedAt).to.be.a('string');
      const error = await rejection(
        unary(client.authenticate.bind(client), { credential: minted.key ?? '', actAsOrgId: '' }, system),
      );
      expect(error.code).to.equal(status.UNAUTHENTICATED);
    });

    it("does not find another org's key", async () => {
      const a = await ownerSession();
      const b = await ownerSession();
      const minted = await unary(
        client.mintOrgApiKey.bind(client),
        { name: 'k', scopes: [ApiScope.MESSAGES_READ] },
        as(a.principal),
      );
      const error = await rejection(unary(client.revokeOrgApiKey.bind(client), { keyId: minted.id }, as(b.principal)));
      expect(error.code).to.equal(status.NOT_FOUND);
    });
  });

  describe('IdentityService.AddMemberDirect', () => {
    it('lets a TEAM_MANAGE key add an agent but never an admin or owner', async () => {
      const { principal } = await ownerSession();
      const minted = await unary(
        client.mintOrgApiKey.bind(client),
        { name: 'team', scopes: [ApiScope.TEAM_MANAGE, ApiScope.TEAM_READ] },
        as(principal),
      );
      const key = as(
        await unary(client.authenticate.bind(client), { credential: minted.key ?? '', actAsOrgId: '' }, system),
      );
      const agent = await unary(
        client.addMemberDirect.bind(client),
        { email: `a-${Date.now()}@example.com`, name: 'Agent', role: MemberRole.AGENT },
        key,
      );
      expect(agent.member?.role).to.equal(MemberRole.AGENT);
      expect(agent.oneTimePassword).to.be.a('string');
      for (const role of [MemberRole.ADMIN, MemberRole.OWNER]) {
        const error = await rejection(
          unary(
            client.addMemberDirect.bind(client),
            { email: `x-${role}-${Date.now()}@example.com`, name: 'X', role },
            key,
          ),
        );
        expect(error.code).to.equal(status.PERMISSION_DENIED);
      }
      const promote = await rejection(
        unary(client.updateMemberRole.bind(client), { memberId: agent.member?.id ?? '', role: MemberRole.ADMIN }, key),
      );
      expect(promote.code).to.equal(status.PERMISSION_DENIED);
    });

    it('refuses removing the last owner', async () => {
      const { principal, created } = await ownerSession();
      const error = await rejection(
        unary(client.removeMember.bind(client), { memberId: created.owner.id }, as(principal)),
      );
      expect(error.code).to.equal(status.FAILED_PRECONDITION);
    });
  });

  describe('IdentityService.RemoveMember', () => {
    it('emits member.removed (keyed by the member) once the removal commits, and nothing when it is refused', async () => {
      const { principal, created } = await ownerSession();
      const seen: Envelope[] = [];
      const watcher = await app.bus.subscribe({
        groupId: `${app.config.KAFKA_TOPIC_PREFIX}test.members.${created.org.id}`,
        topics: [app.config.KAFKA_TOPIC_PREFIX + MEMBERS_TOPIC],
        fromBeginning: true,
        handle: async (record) => {
          const envelope = Envelope.decode(record.value);
          if (envelope.orgId === created.org.id) seen.push({ ...envelope, id: `${record.key}/${envelope.id}` });
        },
      });
      try {
        const agent = await unary(
          client.addMemberDirect.bind(client),
          { email: `gone-${Date.now()}@example.com`, name: 'Agent', role: MemberRole.AGENT },
          as(principal),
        );
        const agentId = agent.member?.id ?? '';
        await rejection(unary(client.removeMember.bind(client), { memberId: created.owner.id }, as(principal)));
        await unary(client.removeMember.bind(client), { memberId: agentId }, as(principal));
        const [event] = await eventually(async () => seen.length > 0 && seen, 10_000, 'member.removed');
        expect(event?.type).to.equal('member.removed');
        expect(event?.member).to.deep.equal({ memberId: agentId });
        expect(event?.id.startsWith(`${agentId}/`)).to.equal(true);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(seen).to.have.length(1);
      } finally {
        await watcher.stop();
      }
    });
  });

  describe('IdentityService.FindMembers', () => {
    const find = (orgId: string, memberIds: string[]) =>
      unary(client.findMembers.bind(client), { memberIds }, as(systemPrincipal(orgId)));

    it("returns only the ids that are members of the caller's org, leaving out removed members", async () => {
      const { principal, created } = await ownerSession();
      const other = await ownerSession();
      const agent = await unary(
        client.addMemberDirect.bind(client),
        { email: `agent-${Date.now()}@example.com`, name: 'Agent', role: MemberRole.AGENT },
        as(principal),
      );
      const agentId = agent.member?.id ?? '';
      const unknown = '0'.repeat(24);
      const asked = [created.owner.id, agentId, other.created.owner.id, unknown, 'not-an-id', created.owner.id];
      expect((await find(created.org.id, asked)).memberIds).to.have.members([created.owner.id, agentId]);
      await unary(client.removeMember.bind(client), { memberId: agentId }, as(principal));
      expect((await find(created.org.id, asked)).memberIds).to.deep.equal([created.owner.id]);
    });

    it('is callable only by services (SYSTEM principal), and takes at most 100 ids', async () => {
      const { principal, created } = await ownerSession();
      const refused = await rejection(
        unary(client.findMembers.bind(client), { memberIds: [created.owner.id] }, as(principal)),
      );
      expect(refused.code).to.equal(status.PERMISSION_DENIED);
      const tooMany = await rejection(
        find(
          created.org.id,
          Array.from({ length: 101 }, () => created.owner.id),
        ),
      );
      expect(tooMany.code).to.equal(status.INVALID_ARGUMENT);
      expect(
        (
          await find(
            created.org.id,
            Array.from({ length: 100 }, () => created.owner.id),
          )
        ).memberIds,
      ).to.deep.equal([created.owner.id]);
    });
  });

  describe('IdentityService.Authenticate (X-Svc-Org)', () => {
    it('lets a TECH_PROVIDER principal act on its managed child org only', async () => {
      const provider = await ownerSession(OrgKind.TECH_PROVIDER);
      const child = await app.createOrg({
        name: 'Client',
        parentOrgId: provider.created.org.id,
        owner: { email: `c-${Date.now()}@example.com`, name: 'C' },
      });
      const stranger = await app.createOrg({
        name: 'Stranger',
        owner: { email: `s-${Date.now()}@example.com`, name: 'S' },
      });
      const acting = await unary(
        client.authenticate.bind(client),
        { credential: provider.session.token, actAsOrgId: child.org.id },
        system,
      );
      expect(acting.orgId).to.equal(child.org.id);
      expect(acting.scopes).not.to.include(ApiScope.PARTNER_ADMIN);
      const refused = await rejection(
        unary(
          client.authenticate.bind(client),
          { credential: provider.session.token, actAsOrgId: stranger.org.id },
          system,
        ),
      );
      expect(refused.code).to.equal(status.PERMISSION_DENIED);
    });

    it('refuses X-Svc-Org for a standard org', async () => {
      const standard = await ownerSession();
      const child = await app.createOrg({
        name: 'Child',
        parentOrgId: standard.created.org.id,
        owner: { email: `k-${Date.now()}@example.com`, name: 'K' },
      });
      const refused = await rejection(
        unary(
          client.authenticate.bind(client),
          { credential: standard.session.token, actAsOrgId: child.org.id },
          system,
        ),
      );
      expect(refused.code).to.equal(status.PERMISSION_DENIED);
    });
  });
});
