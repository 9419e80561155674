import { expect } from 'chai';
import { status, type Metadata } from '@grpc/grpc-js';
import {
  ApiScope,
  PrincipalKind,
  PrincipalSigner,
  TOKEN_LIFETIME_SECONDS,
  anonymousPrincipal,
  callerMetadata,
  dropTestDatabase,
  generateTrustKeys,
  grpcClient,
  importSigningKey,
  newId,
  principalFor,
  principalMetadata,
  rejection,
  systemPrincipal,
  testEnv,
  testSigner,
  testTrustKeys,
  unary,
  type Principal,
} from '@svc/kit';
import { IdentityForTests } from '@svc/identity';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import { InboxApp, inboxConfig } from '../src';

/**
 * What a service accepts as its caller, asked at the service's own gRPC port (docs/decisions/0065): only fresh tokens
 * for this service, from a key still in the JWKS, from an issuer allowed to present that principal; ANONYMOUS only
 * for identity's Login; SYSTEM only within its own org.
 */
describe('service-to-service trust at the inbox', () => {
  let time = Date.now();
  const clock = () => time;
  let app: InboxApp;
  let client: InboxServiceClient;
  const orgId = newId();
  let chatId: string;
  const reader = principalFor(PrincipalKind.API_KEY, orgId, [ApiScope.MESSAGES_READ]);

  const getChat = (metadata: Metadata | Promise<Metadata>, id = chatId) =>
    unary(client.getChat.bind(client), { chatId: id }, metadata);
  const signedBy = async (issuer: string, principal: Principal, audience = 'inbox', at = clock) =>
    principalMetadata(await testSigner(issuer, at).sign(principal, audience));
  const refusedWith = async (metadata: Metadata | Promise<Metadata>, id?: string) =>
    (await rejection(getChat(metadata, id))).code;

  before(async () => {
    app = new InboxApp(inboxConfig(testEnv('inbox')), { serveHttp: false, clock });
    await app.start();
    client = grpcClient(InboxServiceClient, `127.0.0.1:${app.grpcPort}`);
    const chat = await unary(
      client.openChat.bind(client),
      { channelId: newId(), contact: { _id: newId(), name: 'Ada' } },
      signedBy('flows', systemPrincipal(orgId)),
    );
    chatId = chat._id;
  });

  after(async () => {
    client.close();
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  it('answers a fresh token of the gateway for this service', async () => {
    expect((await getChat(signedBy('gateway', reader)))._id).to.equal(chatId);
  });

  it('refuses an expired token with UNAUTHENTICATED', async () => {
    const issuedLongAgo = () => time - (TOKEN_LIFETIME_SECONDS + 10) * 1000;
    expect(await refusedWith(signedBy('gateway', reader, 'inbox', issuedLongAgo))).to.equal(status.UNAUTHENTICATED);
  });

  it('refuses a token for another audience with UNAUTHENTICATED', async () => {
    expect(await refusedWith(signedBy('gateway', reader, 'contacts'))).to.equal(status.UNAUTHENTICATED);
  });

  it('refuses a token signed with a retired key (kid no longer in the JWKS) with UNAUTHENTICATED', async () => {
    const retired = generateTrustKeys(['gateway'], 'retired').signing.gateway;
    const signer = new PrincipalSigner('gateway', importSigningKey('gateway', JSON.stringify(retired)), clock);
    expect(await refusedWith(signer.metadata(reader, 'inbox'))).to.equal(status.UNAUTHENTICATED);
  });

  it('refuses a token replayed after its expiry with UNAUTHENTICATED, though it answered it before', async () => {
    const metadata = await signedBy('gateway', reader);
    expect((await getChat(metadata))._id).to.equal(chatId);
    time += (TOKEN_LIFETIME_SECONDS + 10) * 1000;
    expect(await refusedWith(metadata)).to.equal(status.UNAUTHENTICATED);
  });

  it('refuses a principal its issuer may not present with UNAUTHENTICATED (webhook-ingress minting a key)', async () => {
    expect(await refusedWith(signedBy('webhook-ingress', reader))).to.equal(status.UNAUTHENTICATED);
    expect(await refusedWith(signedBy('webhook-ingress', systemPrincipal(orgId)))).to.equal(status.UNAUTHENTICATED);
  });

  it('refuses SYSTEM without an org with UNAUTHENTICATED', async () => {
    expect(await refusedWith(signedBy('gateway', systemPrincipal()))).to.equal(status.UNAUTHENTICATED);
    expect(await refusedWith(signedBy('flows', systemPrincipal()))).to.equal(status.UNAUTHENTICATED);
  });

  it('refuses an ANONYMOUS principal with UNAUTHENTICATED', async () => {
    expect(await refusedWith(signedBy('gateway', anonymousPrincipal()))).to.equal(status.UNAUTHENTICATED);
  });

  it("answers SYSTEM of org A asking for org B's chat NOT_FOUND, as an unknown id", async () => {
    const otherOrg = signedBy('flows', systemPrincipal(newId()));
    expect(await refusedWith(otherOrg)).to.equal(status.NOT_FOUND);
    expect((await getChat(signedBy('flows', systemPrincipal(orgId))))._id).to.equal(chatId);
  });
});

describe('service-to-service trust: a service that calls others needs its own key', () => {
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => '',
      (error: Error) => error.message,
    );

  it('refuses to start without SVC_SIGNING_KEY, or with the key of another issuer', async () => {
    const { SVC_SIGNING_KEY: _own, ...withoutKey } = testEnv('inbox');
    expect(await failure(new InboxApp(inboxConfig(withoutKey), { serveHttp: false }).start())).to.match(
      /SVC_SIGNING_KEY: required/,
    );
    const flowsKey = JSON.stringify(testTrustKeys().signing.flows);
    const borrowed = new InboxApp(inboxConfig({ ...withoutKey, SVC_SIGNING_KEY: flowsKey }), { serveHttp: false });
    expect(await failure(borrowed.start())).to.match(/must start with "inbox\."/);
  });
});

describe('service-to-service trust at identity', () => {
  const identity = new IdentityForTests();
  let client: IdentityServiceClient;

  before(async () => {
    await identity.start();
    client = grpcClient(IdentityServiceClient, identity.address);
  });

  after(async () => {
    client.close();
    await identity.dispose();
  });

  it('lets ANONYMOUS call Login and refuses it everything else with UNAUTHENTICATED', async () => {
    const anonymous = callerMetadata(anonymousPrincipal(), 'identity');
    const login = await rejection(
      unary(client.login.bind(client), { email: 'nobody@example.com', password: 'wrong-password-123' }, anonymous),
    );
    expect(login.details).to.match(/email or password/i);
    for (const call of [
      unary(client.listTeamMembers.bind(client), {}, anonymous),
      unary(client.authenticate.bind(client), { credential: 'svc_x', actAsOrgId: '' }, anonymous),
      unary(client.getOrg.bind(client), {}, anonymous),
    ]) {
      expect((await rejection(call)).code).to.equal(status.UNAUTHENTICATED);
    }
  });

  it('refuses Login from anyone but an anonymous caller', async () => {
    const member = callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, newId()), 'identity');
    const error = await rejection(
      unary(client.login.bind(client), { email: 'nobody@example.com', password: 'x-password-123' }, member),
    );
    expect(error.code).to.equal(status.PERMISSION_DENIED);
  });
});
