import { expect } from 'chai';
import { ApiScope, eventually } from '@svc/kit';
import { generateKeyPairSync } from 'node:crypto';
import { ChannelStatus, IdentityVerification } from '@svc/proto/channels/v1';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import {
  FakeGoogle,
  SITE,
  WidgetFixtures,
  siteJwt,
  unsignedJwt,
  userHash,
  web,
  type SessionBody,
} from '../support/widget';

const GOOGLE_CLIENT = 'test-client.apps.googleusercontent.com';

describe('widget-api config and handshakes (whole stack over HTTP)', function () {
  const google = new FakeGoogle();
  const serviceEnv: NodeJS.ProcessEnv = { WIDGET_ANONYMOUS_BURST: '3' };
  const harness = new StackHarness(serviceEnv);
  let org: TestOrg;
  let fixtures: WidgetFixtures;
  let url: string;

  before(async function () {
    this.timeout(120_000);
    serviceEnv.WIDGET_GOOGLE_JWKS_URL = await google.start();
    await harness.start();
    url = harness.url;
    org = await harness.newOrg('Widget');
    fixtures = new WidgetFixtures(harness, org);
  });

  after(async () => {
    await harness.stop();
    await google.stop();
  });

  const start = (kind: 'anonymous' | 'identified', body: Record<string, unknown>, origin = SITE) =>
    web<SessionBody>(url, `/visitor/start-${kind}`, { body, origin });

  describe('GET /api/web/config/:publicKey', () => {
    it('answers the sanitised config, and the gate view with status, branding.hidden and security', async () => {
      const { integration, secret } = await fixtures.integration({
        branding: { teamName: 'Acme support', hidden: true },
        security: { googleClientId: GOOGLE_CLIENT },
      });
      const full = await web(url, `/config/${integration.publicKey}`, { origin: SITE });
      expect(full.status).to.equal(200);
      expect(full.headers.get('access-control-allow-origin')).to.equal(SITE);
      expect(full.body).to.include({ publicKey: integration.publicKey, status: 'ACTIVE' });
      expect(full.body.branding).to.include({ teamName: 'Acme support', hidden: true });
      expect(full.body.security).to.deep.equal({ identityVerification: 'OPTIONAL', googleClientId: GOOGLE_CLIENT });
      const text = JSON.stringify(full.body);
      expect(text).not.to.include(secret);
      expect(text).not.to.include(integration.id);
      expect(full.body).not.to.have.property('allowedOrigins');
      const gate = await web(url, `/config/${integration.publicKey}?view=gate`, { origin: SITE });
      expect(gate.body).to.deep.equal({
        publicKey: integration.publicKey,
        status: 'ACTIVE',
        branding: { hidden: true },
        security: { identityVerification: 'OPTIONAL', googleClientId: GOOGLE_CLIENT },
      });
    });

    it('answers 304 for the ETag it gave, and a new ETag once the config changed', async () => {
      const { integration } = await fixtures.integration();
      const first = await web(url, `/config/${integration.publicKey}`);
      const etag = first.headers.get('etag') ?? '';
      expect(etag).to.match(/^"[^"]+"$/);
      expect(first.headers.get('cache-control')).to.match(/max-age=\d+/);
      const again = await fetch(`${url}/api/web/config/${integration.publicKey}`, {
        headers: { 'if-none-match': etag },
      });
      expect(again.status).to.equal(304);
      await fixtures.update(integration.id, { branding: { greeting: 'Hi there' } });
      // Every replica drops its cached integration on the channel event: applies within moments.
      const changed = await eventually(async () => {
        const response = await fetch(`${url}/api/web/config/${integration.publicKey}`, {
          headers: { 'if-none-match': etag },
        });
        return response.status === 200 && response;
      });
      expect(changed.headers.get('etag')).not.to.equal(etag);
      expect(((await changed.json()) as { branding: { greeting: string } }).branding.greeting).to.equal('Hi there');
    });

    it('answers 404 with a JSON error for an unknown key and for a disabled integration', async () => {
      const unknown = await web(url, '/config/pk_does_not_exist');
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error).to.include({ code: 'NOT_FOUND' });
      const { integration } = await fixtures.integration();
      expect((await web(url, `/config/${integration.publicKey}`)).status).to.equal(200);
      await fixtures.update(integration.id, { status: ChannelStatus.DISABLED });
      const disabled = await eventually(async () => {
        const response = await web(url, `/config/${integration.publicKey}?view=gate`);
        return response.status === 404 && response;
      });
      expect(disabled.body.error).to.include({ code: 'NOT_FOUND' });
      expect((await start('anonymous', { publicKey: integration.publicKey })).status).to.equal(404);
    });
  });

  describe('CORS', () => {
    it('answers allowed origins with their CORS headers and refuses others without any', async () => {
      const { integration } = await fixtures.integration();
      const refused = await web(url, `/config/${integration.publicKey}`, { origin: 'https://evil.example.com' });
      expect(refused.status).to.equal(403);
      expect(refused.headers.get('access-control-allow-origin')).to.equal(null);
      const handshake = await start('anonymous', { publicKey: integration.publicKey }, 'https://evil.example.com');
      expect(handshake.status).to.equal(403);
      const preflight = await fetch(`${url}/api/web/visitor/start-anonymous`, {
        method: 'OPTIONS',
        headers: {
          origin: SITE,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin')).to.equal(SITE);
      expect(preflight.headers.get('access-control-allow-methods')).to.include('POST');
      expect(preflight.headers.get('access-control-allow-headers')).to.include('authorization');
    });

    it('serves the frame document with frame-ancestors of the allowed origins', async () => {
      const { integration } = await fixtures.integration({
        allowedOrigins: { origins: [SITE, 'https://www.example.org'] },
      });
      const response = await fetch(`${url}/api/web/frame/${integration.publicKey}`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-security-policy')).to.include(
        'frame-ancestors https://shop.example.com https://www.example.org;',
      );
      expect(await response.text()).to.include(`public-key="${integration.publicKey}"`);
      const none = await fixtures.integration({ allowedOrigins: { origins: [] } });
      const closed = await fetch(`${url}/api/web/frame/${none.integration.publicKey}`);
      expect(closed.headers.get('content-security-policy')).to.include("frame-ancestors 'none'");
    });
  });

  describe('POST /api/web/visitor/start-anonymous', () => {
    it('starts a visitor with a session, a chat and no messages, and the same one again with its refresh token', async () => {
      const { integration } = await fixtures.integration();
      const first = await start('anonymous', { publicKey: integration.publicKey });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body.identified).to.equal(false);
      expect(first.body.sessionToken).to.be.a('string');
      expect(first.body.chat._id).to.match(/^[0-9a-f]{24}$/);
      expect(first.body.messages.data).to.deep.equal([]);
      expect(first.headers.get('cache-control')).to.equal('no-store');
      const back = await start('anonymous', {
        publicKey: integration.publicKey,
        refreshToken: first.body.refreshToken,
      });
      expect(back.body.chat._id).to.equal(first.body.chat._id);
      expect(back.body.refreshToken).not.to.equal(first.body.refreshToken);
      // The refresh token was rotated: the old one no longer names the visitor.
      const stale = await start('anonymous', {
        publicKey: integration.publicKey,
        refreshToken: first.body.refreshToken,
      });
      expect(stale.body.chat._id).not.to.equal(first.body.chat._id);
    });

    it('refuses anonymous visitors when identity verification is required', async () => {
      const { integration } = await fixtures.integration({
        security: { identityVerification: IdentityVerification.REQUIRED },
      });
      const refused = await start('anonymous', { publicKey: integration.publicKey });
      expect(refused.status).to.equal(403);
      expect(refused.body.error).to.include({ code: 'FORBIDDEN', reason: 'IDENTITY_REQUIRED' });
    });

    it('limits new visitors per client address and public key', async () => {
      const { integration } = await fixtures.integration();
      const other = await fixtures.integration();
      for (let i = 0; i < 3; i += 1)
        expect((await start('anonymous', { publicKey: integration.publicKey })).status).to.equal(200);
      const limited = await start('anonymous', { publicKey: integration.publicKey });
      expect(limited.status).to.equal(429);
      expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
      expect((await start('anonymous', { publicKey: other.integration.publicKey })).status).to.equal(200);
    });
  });

  describe('POST /api/web/visitor/start-identified', () => {
    it('accepts a valid jwt, userHash and Google ID token, each naming the same contact again', async () => {
      const { integration, secret } = await fixtures.integration({ security: { googleClientId: GOOGLE_CLIENT } });
      const publicKey = integration.publicKey;
      const jwt = await siteJwt(secret, { name: 'Jo' }, { sub: 'user-1' });
      const byJwt = await start('identified', { publicKey, jwt });
      expect(byJwt.status, JSON.stringify(byJwt.body)).to.equal(200);
      expect(byJwt.body.identified).to.equal(true);
      const byHash = await start('identified', { publicKey, userId: 'user-1', userHash: userHash(secret, 'user-1') });
      expect(byHash.status, JSON.stringify(byHash.body)).to.equal(200);
      expect(byHash.body.chat._id).to.equal(byJwt.body.chat._id);
      const byGoogle = await start('identified', { publicKey, googleIdToken: await google.idToken(GOOGLE_CLIENT) });
      expect(byGoogle.status, JSON.stringify(byGoogle.body)).to.equal(200);
      expect(byGoogle.body.chat._id).not.to.equal(byJwt.body.chat._id);
      const googleAgain = await start('identified', {
        publicKey,
        googleIdToken: await google.idToken(GOOGLE_CLIENT, {}, { issuer: 'accounts.google.com' }),
      });
      expect(googleAgain.body.chat._id).to.equal(byGoogle.body.chat._id);
    });

    it('refuses expired, wrongly signed, tampered and unsigned jwts', async () => {
      const { integration, secret } = await fixtures.integration();
      const publicKey = integration.publicKey;
      const past = Math.floor(Date.now() / 1000) - 3600;
      const expired = await siteJwt(secret, {}, { sub: 'u', issuedAt: past, expiresIn: 60 });
      const wrongSecret = await siteJwt('not-the-secret', {}, { sub: 'u' });
      const valid = await siteJwt(secret, {}, { sub: 'u' });
      const [header, , signature] = valid.split('.');
      const tampered = `${header}.${Buffer.from(JSON.stringify({ sub: 'admin', exp: 4102444800 })).toString('base64url')}.${signature}`;
      const none = unsignedJwt({ sub: 'u', exp: Math.floor(Date.now() / 1000) + 300 });
      for (const jwt of [expired, wrongSecret, tampered, none]) {
        const refused = await start('identified', { publicKey, jwt });
        expect(refused.status, jwt).to.equal(401);
        expect(refused.body.error?.code).to.equal('UNAUTHENTICATED');
      }
    });

    it('refuses a wrong userHash, and userId without userHash (or the reverse) as a bad request', async () => {
      const { integration, secret } = await fixtures.integration();
      const publicKey = integration.publicKey;
      expect((await start('identified', { publicKey, userId: 'u', userHash: userHash('nope', 'u') })).status).to.equal(
        401,
      );
      expect((await start('identified', { publicKey, userId: 'u', userHash: userHash(secret, 'v') })).status).to.equal(
        401,
      );
      const noHash = await start('identified', { publicKey, userId: 'u' });
      expect(noHash.status).to.equal(400);
      expect(noHash.body.error).to.include({ code: 'BAD_USER_INPUT', field: 'userHash' });
      expect((await start('identified', { publicKey, userHash: userHash(secret, 'u') })).status).to.equal(400);
    });

    it('refuses Google tokens with a wrong audience or issuer, expired, not yet valid, or signed by another key', async () => {
      const { integration } = await fixtures.integration({ security: { googleClientId: GOOGLE_CLIENT } });
      const publicKey = integration.publicKey;
      const now = Math.floor(Date.now() / 1000);
      const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const tokens = [
        await google.idToken('another-client'),
        await google.idToken(GOOGLE_CLIENT, {}, { issuer: 'https://evil.example.com' }),
        await google.idToken(GOOGLE_CLIENT, {}, { expiresIn: -120 }),
        await google.idToken(GOOGLE_CLIENT, {}, { notBefore: now + 3600 }),
        await google.idToken(GOOGLE_CLIENT, {}, { key: otherKey }),
        unsignedJwt({ iss: 'https://accounts.google.com', aud: GOOGLE_CLIENT, sub: '1', exp: now + 300, iat: now }),
      ];
      for (const googleIdToken of tokens) {
        const refused = await start('identified', { publicKey, googleIdToken });
        expect(refused.status, googleIdToken.slice(0, 40)).to.equal(401);
      }
      const without = await fixtures.integration();
      const notOffered = await start('identified', {
        publicKey: without.integration.publicKey,
        googleIdToken: await google.idToken(GOOGLE_CLIENT),
      });
      expect(notOffered.status).to.equal(401);
    });

    it('decides by the highest proof present: a bad one is refused even with a good weaker one', async () => {
      const { integration, secret } = await fixtures.integration({ security: { googleClientId: GOOGLE_CLIENT } });
      const publicKey = integration.publicKey;
      const goodJwt = await siteJwt(secret, {}, { sub: 'u' });
      const goodHash = { userId: 'u', userHash: userHash(secret, 'u') };
      const badGoogle = await google.idToken('another-client');
      expect(
        (await start('identified', { publicKey, googleIdToken: badGoogle, jwt: goodJwt, ...goodHash })).status,
      ).to.equal(401);
      const badJwt = await siteJwt('wrong', {}, { sub: 'u' });
      expect((await start('identified', { publicKey, jwt: badJwt, ...goodHash })).status).to.equal(401);
    });

    it('refuses jwts and userHashes made with the secret before a rotation, at once', async () => {
      const { integration, secret } = await fixtures.integration();
      const publicKey = integration.publicKey;
      const jwt = await siteJwt(secret, {}, { sub: 'u' });
      expect((await start('identified', { publicKey, jwt })).status).to.equal(200);
      const rotated = await fixtures.rotate(integration.id);
      expect((await start('identified', { publicKey, jwt })).status).to.equal(401);
      expect((await start('identified', { publicKey, userId: 'u', userHash: userHash(secret, 'u') })).status).to.equal(
        401,
      );
      expect((await start('identified', { publicKey, userId: 'u', userHash: userHash(rotated, 'u') })).status).to.equal(
        200,
      );
    });

    it('trusts a Google email only when verified, and shows agents the visitor by its profile', async () => {
      const reader = (await org.mintKey([ApiScope.MESSAGES_READ, ApiScope.PII_READ])).key;
      const contactOf = async (chatId: string) => {
        const found = await harness.graphql<{ chat: { contact: { name: string; email: string | null } } }>(
          'query($c: String!) { chat(chatId: $c) { contact { name email } } }',
          { c: chatId },
          reader,
        );
        return found.body.data?.chat.contact;
      };
      const { integration } = await fixtures.integration({ security: { googleClientId: GOOGLE_CLIENT } });
      const unverified = await start('identified', {
        publicKey: integration.publicKey,
        googleIdToken: await google.idToken(GOOGLE_CLIENT, {
          sub: 'g-unverified',
          email: 'eve@example.com',
          email_verified: false,
        }),
      });
      expect(unverified.status, JSON.stringify(unverified.body)).to.equal(200);
      expect(await contactOf(unverified.body.chat._id)).to.deep.equal({ name: 'Ada Lovelace', email: null });
      const verified = await start('identified', {
        publicKey: integration.publicKey,
        googleIdToken: await google.idToken(GOOGLE_CLIENT, { sub: 'g-verified', email: 'grace@example.com' }),
      });
      expect(await contactOf(verified.body.chat._id)).to.deep.equal({
        name: 'Ada Lovelace',
        email: 'grace@example.com',
      });
    });

    it('never links a visitor to an existing contact by a claimed email', async () => {
      const { integration, secret } = await fixtures.integration();
      const publicKey = integration.publicKey;
      const owner = await start('identified', {
        publicKey,
        jwt: await siteJwt(secret, {}, { sub: 'real-owner' }),
        email: 'owner@example.com',
      });
      expect(owner.status).to.equal(200);
      const impostor = await start('identified', {
        publicKey,
        jwt: await siteJwt(secret, {}, { sub: 'impostor' }),
        email: 'owner@example.com',
      });
      expect(impostor.status, JSON.stringify(impostor.body)).to.equal(200);
      expect(impostor.body.chat._id).not.to.equal(owner.body.chat._id);
      const anonymous = await start('anonymous', { publicKey, email: 'owner@example.com' });
      expect(anonymous.body.chat._id).not.to.equal(owner.body.chat._id);
    });
  });
});
