import { expect } from 'chai';
import { IdentityServiceService } from '@svc/proto/identity/v1';
import { Envelope } from '@svc/proto/events/v1';
import {
  EmbeddedBus,
  GrpcServer,
  ORG_ERASURE_TOPIC,
  eventually,
  newId,
  orgEraseRequestedEvent,
  MemberRole,
  OrgKind,
  PrincipalKind,
  PrincipalVerifier,
  Unauthenticated,
  createLogger,
  implement,
  jwksSchema,
  testSigner,
  testTrustKeys,
  type Principal,
} from '@svc/kit';
import { Authenticator } from '../src/auth/authenticator';

/** An identity service that knows every `key_<id>` credential and counts the calls it answers. */
async function fakeIdentity() {
  const logger = createLogger('identity-fake', 'silent');
  const calls: string[] = [];
  const server = new GrpcServer();
  const notUsed = () => Promise.reject(new Error('not used'));
  const handlers = Object.fromEntries(Object.keys(IdentityServiceService).map((method) => [method, notUsed]));
  server.add(
    IdentityServiceService,
    implement(
      'identity',
      IdentityServiceService,
      {
        ...(handlers as unknown as Parameters<typeof implement<typeof IdentityServiceService>>[2]),
        authenticate: async ({ credential, actAsOrgId }): Promise<Principal> => {
          calls.push(credential);
          const keyId = /^key_(\w+)$/.exec(credential)?.[1];
          if (!keyId) throw new Unauthenticated('unknown');
          return {
            kind: PrincipalKind.API_KEY,
            orgId: actAsOrgId || 'org',
            orgKind: OrgKind.STANDARD,
            keyId,
            memberId: '',
            role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
            scopes: [],
            sessionId: '',
            visitorContactId: '',
            visitorChannelId: '',
          };
        },
      },
      { verifier: new PrincipalVerifier('identity', jwksSchema.parse(testTrustKeys().jwks)), logger },
    ),
  );
  const port = await server.listen('127.0.0.1', 0);
  return { address: `127.0.0.1:${port}`, calls, stop: () => server.stop(100) };
}

describe('gateway.Authenticator cache', () => {
  const signer = testSigner('gateway');
  const logger = createLogger('gateway', 'silent');
  let identity: Awaited<ReturnType<typeof fakeIdentity>>;

  before(async () => {
    identity = await fakeIdentity();
  });
  after(async () => {
    await identity.stop();
  });

  it('keeps at most maxEntries credentials, known or unknown, and forgets the index of evicted ones', async () => {
    const authenticator = new Authenticator(identity.address, signer, logger, { ttlMs: 60_000, maxEntries: 3 });
    try {
      for (let i = 0; i < 20; i += 1) await authenticator.authenticate(`key_k${i}`, '');
      for (let i = 0; i < 20; i += 1) await authenticator.authenticate(`random-${i}`, '');
      expect(authenticator.size).to.deep.equal({ credentials: 3, owners: 0, orgs: 0 });
      await authenticator.authenticate('key_a', '');
      await authenticator.authenticate('key_b', '');
      expect(authenticator.size).to.deep.equal({ credentials: 3, owners: 2, orgs: 1 });
    } finally {
      await authenticator.stop();
    }
  });

  it('answers a cached credential without asking identity, and evicting its key asks again', async () => {
    const authenticator = new Authenticator(identity.address, signer, logger, { ttlMs: 60_000, maxEntries: 3 });
    try {
      identity.calls.length = 0;
      expect((await authenticator.authenticate('key_same', ''))?.keyId).to.equal('same');
      expect((await authenticator.authenticate('key_same', ''))?.keyId).to.equal('same');
      expect(identity.calls).to.deep.equal(['key_same']);
      authenticator.evict('same');
      expect(authenticator.size).to.deep.equal({ credentials: 0, owners: 0, orgs: 0 });
      await authenticator.authenticate('key_same', '');
      expect(identity.calls).to.deep.equal(['key_same', 'key_same']);
    } finally {
      await authenticator.stop();
    }
  });

  it('evicting an org forgets its credentials and X-Svc-Org naming it, and nothing of another org', async () => {
    const authenticator = new Authenticator(identity.address, signer, logger, { ttlMs: 60_000, maxEntries: 10 });
    try {
      await authenticator.authenticate('key_provider', '');
      await authenticator.authenticate('key_provider', 'client');
      await authenticator.authenticate('key_provider', 'sibling');
      identity.calls.length = 0;
      authenticator.evictOrg('client');
      expect(authenticator.size).to.deep.equal({ credentials: 2, owners: 1, orgs: 2 });
      await authenticator.authenticate('key_provider', '');
      await authenticator.authenticate('key_provider', 'sibling');
      expect(identity.calls).to.deep.equal([]);
      expect((await authenticator.authenticate('key_provider', 'client'))?.orgId).to.equal('client');
      expect(identity.calls).to.deep.equal(['key_provider']);
    } finally {
      await authenticator.stop();
    }
  });

  it('forgets a deprovisioned org’s credentials when another replica reports org.erase_requested', async () => {
    const bus = new EmbeddedBus();
    await bus.start();
    const authenticator = new Authenticator(identity.address, signer, logger, { ttlMs: 60_000, maxEntries: 10 });
    try {
      await authenticator.start(bus, '', 'pod-a');
      await authenticator.authenticate('key_provider', 'client');
      await authenticator.authenticate('key_provider', 'other');
      const event = orgEraseRequestedEvent({ erasureId: 'client', orgId: 'client' });
      const envelope: Envelope = {
        ...event.payload,
        id: newId(),
        type: event.type,
        orgId: 'client',
        occurredAt: new Date().toISOString(),
        requestContext: {},
      };
      await bus.publish([
        { topic: ORG_ERASURE_TOPIC, key: event.key, value: Buffer.from(Envelope.encode(envelope).finish()) },
      ]);
      await eventually(async () => authenticator.size.credentials === 1);
      expect(authenticator.size).to.deep.equal({ credentials: 1, owners: 1, orgs: 1 });
    } finally {
      await authenticator.stop();
      await bus.stop();
    }
  });
});
