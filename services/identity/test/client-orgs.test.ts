import { expect } from 'chai';
import { status, type Metadata } from '@grpc/grpc-js';
import {
  ApiScope,
  MemberRole,
  ORG_ERASE_REQUESTED,
  ORG_ERASURE_PARTICIPANTS,
  ORG_ERASURE_TOPIC,
  OrgKind,
  anonymousPrincipal,
  callerMetadata,
  dropTestDatabase,
  eventually,
  grpcClient,
  newId,
  publishOrgEraseConfirmation,
  rejection,
  systemPrincipal,
  testEnv,
  unary,
  type ErasureKindCount,
  type Principal,
  type Subscription,
} from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { ClientOrgServiceClient, ClientOrgStatus, type ClientOrg } from '@svc/proto/identity/v1/client_orgs';
import { IdentityApp, identityConfig } from '../src';

describe('ClientOrgService', () => {
  let app: IdentityApp;
  let identity: IdentityServiceClient;
  let clientOrgs: ClientOrgServiceClient;
  let system: Metadata;
  let anonymous: Metadata;
  let watcher: Subscription;
  const requested: Envelope[] = [];
  const as = (principal: Principal) => callerMetadata(principal, 'identity');
  const unique = () => Math.random().toString(36).slice(2);

  before(async () => {
    app = new IdentityApp(identityConfig(testEnv('identity')));
    await app.start();
    identity = grpcClient(IdentityServiceClient, `127.0.0.1:${app.grpcPort}`);
    clientOrgs = grpcClient(ClientOrgServiceClient, `127.0.0.1:${app.grpcPort}`);
    system = await as(systemPrincipal());
    anonymous = await as(anonymousPrincipal());
    watcher = await app.bus.subscribe({
      groupId: `${app.config.KAFKA_TOPIC_PREFIX}test.org-erasure`,
      topics: [app.config.KAFKA_TOPIC_PREFIX + ORG_ERASURE_TOPIC],
      fromBeginning: true,
      handle: async (record) => {
        const envelope = Envelope.decode(record.value);
        if (envelope.type === ORG_ERASE_REQUESTED) requested.push(envelope);
      },
    });
  });

  after(async () => {
    await watcher.stop();
    identity.close();
    clientOrgs.close();
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  const authenticate = (credential: string, actAsOrgId = '') =>
    unary(identity.authenticate.bind(identity), { credential, actAsOrgId }, system);

  async function login(email: string, password: string) {
    const session = await unary(identity.login.bind(identity), { email, password }, anonymous);
    return { token: session.token, principal: await authenticate(session.token) };
  }

  async function owner(kind = OrgKind.TECH_PROVIDER) {
    const email = `owner-${unique()}@example.com`;
    const created = await app.createOrg({ name: 'Provider', kind, owner: { email, name: 'Olive Owner' } });
    return { org: created.org, ...(await login(email, created.oneTimePassword ?? '')) };
  }

  async function key(principal: Principal, scopes: ApiScope[]) {
    const minted = await unary(identity.mintOrgApiKey.bind(identity), { name: 'k', scopes }, as(principal));
    return { token: minted.key ?? '', principal: await authenticate(minted.key ?? '') };
  }

  const create = (principal: Principal, name: string, ownerEmail?: string) =>
    unary(
      clientOrgs.createClientOrg.bind(clientOrgs),
      { name, ...(ownerEmail ? { owner: { email: ownerEmail, name: 'Cleo Client' } } : {}) },
      as(principal),
    );
  const deprovision = (principal: Principal, id: string) =>
    unary(clientOrgs.deprovisionClientOrg.bind(clientOrgs), { id }, as(principal));
  const list = (principal: Principal, request: { limit?: number; offset?: number; status?: ClientOrgStatus } = {}) =>
    unary(clientOrgs.listClientOrgs.bind(clientOrgs), request, as(principal));

  /** A client org with an owner logged in and an API key, as a provider creates it. */
  async function client(provider: Principal) {
    const email = `client-${unique()}@example.com`;
    const created = await create(provider, `Client ${unique()}`, email);
    const session = await login(email, created.owner?.oneTimePassword ?? '');
    const apiKey = await key(session.principal, [ApiScope.MESSAGES_READ]);
    return { org: created.org as ClientOrg, session, apiKey };
  }

  /** Publishes `org.erase_confirmed` as participant `service` would. */
  const confirm = (orgId: string, service: string, counts: ErasureKindCount[] = []) =>
    publishOrgEraseConfirmation(app.bus, app.config.KAFKA_TOPIC_PREFIX, { erasureId: orgId, orgId }, service, counts);

  const statusOf = async (provider: Principal, id: string) =>
    (await list(provider, { limit: 100 })).data.find((org) => org.id === id);

  describe('CreateClientOrg', () => {
    it('creates an ACTIVE client org under the provider, with an owner who logs in with the one-time password', async () => {
      const provider = await owner();
      const email = `first-${unique()}@example.com`;
      const created = await create(provider.principal, '  Cleo Corp ', email);
      expect(created.org).to.include({ name: 'Cleo Corp', status: ClientOrgStatus.ACTIVE });
      expect(created.org?.deprovisioning).to.deep.equal([]);
      expect(created.owner).to.include({ email, name: 'Cleo Client' });
      const session = await login(email, created.owner?.oneTimePassword ?? '');
      expect(session.principal).to.include({ orgId: created.org?.id, role: MemberRole.OWNER });
      const org = await unary(identity.getOrg.bind(identity), {}, as(session.principal));
      expect(org.parentOrgId).to.equal(provider.org.id);
      expect(org.kind).to.equal(OrgKind.STANDARD);
    });

    it('creates a client org without an owner', async () => {
      const provider = await owner();
      const created = await create(provider.principal, 'Empty');
      expect(created.owner).to.equal(undefined);
      expect((await statusOf(provider.principal, created.org?.id ?? ''))?.status).to.equal(ClientOrgStatus.ACTIVE);
    });

    it('refuses an empty name and a malformed owner email, naming the field', async () => {
      const provider = await owner();
      const empty = await rejection(create(provider.principal, '   '));
      expect([empty.code, empty.metadata.get('x-svc-error-field')[0]]).to.deep.equal([status.INVALID_ARGUMENT, 'name']);
      const email = await rejection(create(provider.principal, 'Named', 'not-an-email'));
      expect([email.code, email.metadata.get('x-svc-error-field')[0]]).to.deep.equal([
        status.INVALID_ARGUMENT,
        'email',
      ]);
    });

    it('accepts a PARTNER_ADMIN key and owner or admin sessions of a TECH_PROVIDER, and refuses everyone else', async () => {
      const provider = await owner();
      const partnerKey = await key(provider.principal, [ApiScope.PARTNER_ADMIN]);
      expect((await create(partnerKey.principal, 'By key')).org?.status).to.equal(ClientOrgStatus.ACTIVE);
      const otherKey = await key(provider.principal, [ApiScope.TEAM_MANAGE]);
      const agentEmail = `agent-${unique()}@example.com`;
      const agent = await unary(
        identity.addMemberDirect.bind(identity),
        { email: agentEmail, name: 'Agent', role: MemberRole.AGENT },
        as(provider.principal),
      );
      const agentSession = await login(agentEmail, agent.oneTimePassword ?? '');
      const standard = await owner(OrgKind.STANDARD);
      const child = await client(provider.principal);
      const actingAsChild = await authenticate(provider.token, child.org.id);
      for (const [who, principal] of [
        ['a key without PARTNER_ADMIN', otherKey.principal],
        ['an agent', agentSession.principal],
        ['a STANDARD org owner', standard.principal],
        ['a provider acting as its client (X-Svc-Org)', actingAsChild],
        ["the client org's owner", child.session.principal],
      ] as const) {
        const refused = await rejection(create(principal, 'Nope'));
        expect(refused.code, who).to.equal(status.PERMISSION_DENIED);
        expect((await rejection(list(principal))).code, who).to.equal(status.PERMISSION_DENIED);
      }
    });
  });

  describe('ListClientOrgs', () => {
    it('pages oldest first with the id last, filters by status, and lists no other provider’s client', async () => {
      const provider = await owner();
      const sibling = await owner();
      await create(sibling.principal, 'Sibling client');
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await create(provider.principal, `C${i}`)).org?.id ?? '');
      const pages = [];
      for (let offset = 0; offset < 6; offset += 2) pages.push(await list(provider.principal, { limit: 2, offset }));
      expect(pages.flatMap((page) => page.data.map((org) => org.id))).to.deep.equal(ids);
      expect(pages.map((page) => [page.totalCount, page.hasMore])).to.deep.equal([
        [5, true],
        [5, true],
        [5, false],
      ]);
      await deprovision(provider.principal, ids[1] ?? '');
      const deprovisioning = await list(provider.principal, { status: ClientOrgStatus.DEPROVISIONING });
      expect(deprovisioning.data.map((org) => org.id)).to.deep.equal([ids[1]]);
      expect((await list(provider.principal, { status: ClientOrgStatus.ACTIVE })).totalCount).to.equal(4);
    });

    it('refuses a limit outside 1..100 and a negative offset, naming the field', async () => {
      const provider = await owner();
      for (const [request, field] of [
        [{ limit: 0 }, 'limit'],
        [{ limit: 101 }, 'limit'],
        [{ offset: -1 }, 'offset'],
      ] as const) {
        const refused = await rejection(list(provider.principal, request));
        expect([refused.code, refused.metadata.get('x-svc-error-field')[0]]).to.deep.equal([
          status.INVALID_ARGUMENT,
          field,
        ]);
      }
    });
  });

  describe('DeprovisionClientOrg', () => {
    it('answers a sibling’s client, a non-child and an unknown id alike (NOT_FOUND), and a malformed id as bad input', async () => {
      const provider = await owner();
      const sibling = await owner();
      const theirs = await client(sibling.principal);
      const standalone = await owner(OrgKind.STANDARD);
      const answers = [];
      for (const id of [theirs.org.id, standalone.org.id, provider.org.id, newId()]) {
        const refused = await rejection(deprovision(provider.principal, id));
        answers.push([refused.code, refused.details.replace(id, '<id>')]);
      }
      expect(new Set(answers.map((a) => JSON.stringify(a))).size).to.equal(1);
      expect(answers[0]?.[0]).to.equal(status.NOT_FOUND);
      expect((await statusOf(sibling.principal, theirs.org.id))?.status).to.equal(ClientOrgStatus.ACTIVE);
      const malformed = await rejection(deprovision(provider.principal, 'nope'));
      expect([malformed.code, malformed.metadata.get('x-svc-error-field')[0]]).to.deep.equal([
        status.INVALID_ARGUMENT,
        'id',
      ]);
    });

    it('erases identity’s part at once, refuses the org’s credentials and X-Svc-Org, and asks every service once', async () => {
      const provider = await owner();
      const child = await client(provider.principal);
      await unary(
        identity.addMemberDirect.bind(identity),
        { email: `more-${unique()}@example.com`, name: 'Second', role: MemberRole.AGENT },
        as(child.session.principal),
      );
      expect((await authenticate(provider.token, child.org.id)).orgId).to.equal(child.org.id);
      const org = await deprovision(provider.principal, child.org.id);
      expect(org.status).to.equal(ClientOrgStatus.DEPROVISIONING);
      expect(org.deprovisionRequestedAt).to.be.a('string');
      expect(org.deprovisioning.map((p) => p.service)).to.deep.equal([...ORG_ERASURE_PARTICIPANTS]);
      expect(org.deprovisioning[0]).to.deep.include({
        service: 'identity',
        confirmed: true,
        counts: [
          { kind: 'members', count: 2 },
          { kind: 'sessions', count: 1 },
          { kind: 'api_keys', count: 1 },
        ],
      });
      expect(org.deprovisioning.slice(1).every((p) => !p.confirmed && !p.counts.length)).to.equal(true);
      for (const credential of [child.session.token, child.apiKey.token])
        expect((await rejection(authenticate(credential))).code).to.equal(status.UNAUTHENTICATED);
      expect((await rejection(authenticate(provider.token, child.org.id))).code).to.equal(status.PERMISSION_DENIED);
      const again = await deprovision(provider.principal, child.org.id);
      expect(again).to.deep.equal(org);
      const event = await eventually(async () => requested.find((e) => e.orgId === child.org.id));
      expect(event.erasure?.erasureId).to.equal(child.org.id);
      // The second call's answer came after the first's commit; both would have been relayed together.
      expect(requested.filter((e) => e.orgId === child.org.id)).to.have.length(1);
    });
  });

  describe('org.erase_confirmed receipts', () => {
    it('marks the org DEPROVISIONED once every participant confirmed, keeping each one’s first confirmation', async () => {
      const provider = await owner();
      const child = await client(provider.principal);
      const [, ...others] = ORG_ERASURE_PARTICIPANTS;
      const last = others.pop() ?? '';
      await deprovision(provider.principal, child.org.id);
      // From a service that is no participant: nothing is recorded.
      await confirm(child.org.id, 'nobody', []);
      for (const service of others) await confirm(child.org.id, service, [{ kind: 'rows', count: 3 }]);
      await confirm(child.org.id, 'inbox', [{ kind: 'rows', count: 0 }]);
      const confirmedServices = async () =>
        (await statusOf(provider.principal, child.org.id))?.deprovisioning
          .filter((p) => p.confirmed)
          .map((p) => p.service);
      await eventually(async () => (await confirmedServices())?.length === others.length + 1);
      expect(await confirmedServices()).to.deep.equal(['identity', ...others]);
      expect((await statusOf(provider.principal, child.org.id))?.status).to.equal(ClientOrgStatus.DEPROVISIONING);
      await confirm(child.org.id, last, [{ kind: 'rows', count: 1 }]);
      const done = await eventually(async () => {
        const org = await statusOf(provider.principal, child.org.id);
        return org?.status === ClientOrgStatus.DEPROVISIONED ? org : undefined;
      });
      expect(done.deprovisionedAt).to.be.a('string');
      expect(done.deprovisioning.find((p) => p.service === 'inbox')?.counts).to.deep.equal([
        { kind: 'rows', count: 3 },
      ]);
      expect(done.deprovisioning.every((p) => p.confirmed)).to.equal(true);
      // Still refused, still listed, and deprovisioning again answers the org as it is.
      expect((await deprovision(provider.principal, child.org.id)).status).to.equal(ClientOrgStatus.DEPROVISIONED);
      expect((await rejection(authenticate(provider.token, child.org.id))).code).to.equal(status.PERMISSION_DENIED);
    });
  });
});
