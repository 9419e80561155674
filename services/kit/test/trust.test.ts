import { expect } from 'chai';
import {
  ApiScope,
  ERASURE_PARTICIPANTS,
  PrincipalKind,
  PrincipalSigner,
  PrincipalVerifier,
  RESIGN_AFTER_MS,
  TOKEN_LIFETIME_SECONDS,
  anonymousPrincipal,
  generateTrustKeys,
  importSigningKey,
  jwksSchema,
  mayPresent,
  principalFor,
  systemPrincipal,
  testSigner,
  testTrustKeys,
  visitorPrincipal,
  type Principal,
} from '../src';

const orgId = '0123456789abcdef01234567';
const member: Principal = principalFor(PrincipalKind.MEMBER_SESSION, orgId, [ApiScope.MESSAGES_READ]);

/** The reason a token is refused, or undefined when it verifies. */
const refusal = (verifier: PrincipalVerifier, token: string) =>
  verifier.verify(token).then(
    () => undefined,
    (error: Error) => error.message,
  );

describe('kit principal tokens (docs/decisions/0065)', () => {
  let time = Date.UTC(2026, 10, 24, 12);
  const clock = () => time;
  const jwks = () => jwksSchema.parse(testTrustKeys().jwks);
  const inbox = () => new PrincipalVerifier('inbox', jwks(), clock);
  const gateway = () => testSigner('gateway', clock);

  it('verifies what an allowed issuer signed for this audience', async () => {
    const token = await gateway().sign(member, 'inbox');
    expect(await inbox().verify(token)).to.deep.equal(member);
  });

  it('refuses an expired token', async () => {
    const token = await testSigner('gateway', () => time - (TOKEN_LIFETIME_SECONDS + 10) * 1000).sign(member, 'inbox');
    expect(await refusal(inbox(), token)).to.match(/exp/);
  });

  it('refuses a token for another audience', async () => {
    expect(await refusal(inbox(), await gateway().sign(member, 'contacts'))).to.match(/aud/);
  });

  it('refuses a token signed with a retired key (its kid no longer in the JWKS)', async () => {
    const retired = generateTrustKeys(['gateway'], 'retired');
    const signer = new PrincipalSigner(
      'gateway',
      importSigningKey('gateway', JSON.stringify(retired.signing.gateway)),
      clock,
    );
    expect(await refusal(inbox(), await signer.sign(member, 'inbox'))).to.match(/no applicable key|JWKS/i);
  });

  it('refuses a token it accepted once it has expired (a replay), although it remembers it', async () => {
    const verifier = inbox();
    const token = await gateway().sign(member, 'inbox');
    expect(await refusal(verifier, token)).to.equal(undefined);
    time += (TOKEN_LIFETIME_SECONDS + 10) * 1000;
    expect(await refusal(verifier, token)).to.match(/expired/);
  });

  it('refuses a principal its issuer may not present: webhook-ingress never presents a member', async () => {
    const ingress = testSigner('webhook-ingress', clock);
    expect(await refusal(inbox(), await ingress.sign(member, 'inbox'))).to.match(/may not present/);
    const contacts = new PrincipalVerifier('contacts', jwks(), clock);
    expect(await refusal(contacts, await ingress.sign(member, 'contacts'))).to.match(/may not present/);
    expect(await contacts.verify(await ingress.sign(systemPrincipal(orgId), 'contacts'))).to.deep.include({ orgId });
  });

  it('refuses a token whose key belongs to another issuer than the one it names', async () => {
    const ingressKey = await importSigningKey(
      'webhook-ingress',
      JSON.stringify(testTrustKeys().signing['webhook-ingress']),
    );
    const forger = new PrincipalSigner('gateway', ingressKey, clock);
    expect(await refusal(inbox(), await forger.sign(member, 'inbox'))).to.match(/iss/);
  });

  it('refuses tampered and missing tokens', async () => {
    const [header, payload, signature] = (await gateway().sign(member, 'inbox')).split('.');
    const widened = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()), aud: 'identity' }),
    ).toString('base64url');
    expect(await refusal(inbox(), `${header}.${widened}.${signature}`)).to.match(/signature/);
    expect(await refusal(inbox(), 'not-a-token')).to.match(/malformed/);
    expect(await refusal(inbox(), '')).to.match(/missing/);
  });

  it('reuses a signed token until it is half its life old', async () => {
    const signer = gateway();
    const first = await signer.token(member, 'inbox');
    time += RESIGN_AFTER_MS - 1_000;
    expect(await signer.token(member, 'inbox')).to.equal(first);
    expect(await signer.token(member, 'contacts')).to.not.equal(first);
    time += 2_000;
    expect(await signer.token(member, 'inbox')).to.not.equal(first);
  });
});

describe('kit trust policy', () => {
  it('lets only the gateway present members, keys and anonymous callers', () => {
    const key = principalFor(PrincipalKind.API_KEY, orgId);
    for (const issuer of ['flows', 'webhook-ingress', 'contacts', 'inbox', 'stack']) {
      expect(mayPresent(issuer, 'inbox', member), issuer).to.equal(false);
      expect(mayPresent(issuer, 'identity', key), issuer).to.equal(false);
      expect(mayPresent(issuer, 'identity', anonymousPrincipal()), issuer).to.equal(false);
    }
    expect(mayPresent('gateway', 'inbox', member)).to.equal(true);
    expect(mayPresent('gateway', 'identity', anonymousPrincipal())).to.equal(true);
    expect(mayPresent('gateway', 'inbox', anonymousPrincipal())).to.equal(false);
  });

  it('lets services present SYSTEM of an org only where they call, and SYSTEM without an org nowhere', () => {
    expect(mayPresent('flows', 'inbox', systemPrincipal(orgId))).to.equal(true);
    expect(mayPresent('webhook-ingress', 'inbox', systemPrincipal(orgId))).to.equal(false);
    expect(mayPresent('flows', 'identity', systemPrincipal())).to.equal(false);
    expect(mayPresent('gateway', 'identity', systemPrincipal())).to.equal(true);
    expect(mayPresent('gateway', 'inbox', systemPrincipal())).to.equal(false);
    expect(mayPresent('gateway', 'inbox', systemPrincipal(orgId))).to.equal(false);
    expect(mayPresent('unknown', 'inbox', systemPrincipal(orgId))).to.equal(false);
  });

  it('lets channels present SYSTEM of an org to contacts and the inbox only (messaging platforms)', () => {
    expect(mayPresent('channels', 'contacts', systemPrincipal(orgId))).to.equal(true);
    expect(mayPresent('channels', 'inbox', systemPrincipal(orgId))).to.equal(true);
    for (const audience of ['identity', 'flows', 'webhook-ingress', 'channels'])
      expect(mayPresent('channels', audience, systemPrincipal(orgId)), audience).to.equal(false);
    expect(mayPresent('channels', 'inbox', systemPrincipal())).to.equal(false);
  });

  it('lets contacts ask every other erasure participant, and the inbox ask contacts, as SYSTEM of an org', () => {
    for (const participant of ERASURE_PARTICIPANTS.filter((name) => name !== 'contacts')) {
      expect(mayPresent('contacts', participant, systemPrincipal(orgId)), participant).to.equal(true);
      expect(mayPresent('contacts', participant, systemPrincipal()), participant).to.equal(false);
    }
    expect(mayPresent('contacts', 'identity', systemPrincipal(orgId))).to.equal(false);
    expect(mayPresent('inbox', 'contacts', systemPrincipal(orgId))).to.equal(true);
  });

  it('lets contacts and webhook-ingress ask channels as SYSTEM of an org, never of the installation (decision 0042)', () => {
    for (const issuer of ['contacts', 'webhook-ingress']) {
      expect(mayPresent(issuer, 'channels', systemPrincipal(orgId)), issuer).to.equal(true);
      expect(mayPresent(issuer, 'channels', systemPrincipal()), issuer).to.equal(false);
    }
    expect(mayPresent('flows', 'channels', systemPrincipal(orgId))).to.equal(false);
  });
});

describe('kit trust policy: visitors and widget-api (docs/decisions/0081)', () => {
  const visitor = visitorPrincipal(orgId, 'aaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbb');

  it('lets only widget-api present a visitor, and only to the inbox', () => {
    expect(mayPresent('widget-api', 'inbox', visitor)).to.equal(true);
    for (const issuer of ['gateway', 'webhook-ingress', 'flows', 'contacts', 'inbox', 'stack'])
      expect(mayPresent(issuer, 'inbox', visitor), issuer).to.equal(false);
    for (const audience of ['contacts', 'identity', 'channels', 'flows', 'webhook-ingress'])
      expect(mayPresent('widget-api', audience, visitor), audience).to.equal(false);
  });

  it('refuses a visitor without its org, contact or channel', () => {
    for (const partial of [
      { ...visitor, orgId: '' },
      { ...visitor, visitorContactId: '' },
      { ...visitor, visitorChannelId: '' },
    ])
      expect(mayPresent('widget-api', 'inbox', partial)).to.equal(false);
  });

  it('lets widget-api present SYSTEM of an org to channels, contacts and the inbox, and the installation to channels', () => {
    for (const audience of ['channels', 'contacts', 'inbox'])
      expect(mayPresent('widget-api', audience, systemPrincipal(orgId)), audience).to.equal(true);
    expect(mayPresent('widget-api', 'identity', systemPrincipal(orgId))).to.equal(false);
    expect(mayPresent('widget-api', 'channels', systemPrincipal())).to.equal(true);
    expect(mayPresent('widget-api', 'inbox', systemPrincipal())).to.equal(false);
    expect(mayPresent('widget-api', 'inbox', member)).to.equal(false);
    expect(mayPresent('widget-api', 'identity', anonymousPrincipal())).to.equal(false);
  });

  it('refuses a VISITOR token from the gateway or webhook-ingress at verification', async () => {
    const verifier = new PrincipalVerifier('inbox', jwksSchema.parse(testTrustKeys().jwks));
    for (const issuer of ['gateway', 'webhook-ingress']) {
      const token = await testSigner(issuer).sign(visitor, 'inbox');
      const refused = await verifier.verify(token).then(
        () => '',
        (error: Error) => error.message,
      );
      expect(refused, issuer).to.match(/may not present/);
    }
    expect(await verifier.verify(await testSigner('widget-api').sign(visitor, 'inbox'))).to.deep.equal(visitor);
  });
});

describe('kit trust keys', () => {
  it('takes a JWKS of public keys whose ids name their issuer', () => {
    const keys = generateTrustKeys(['gateway', 'flows']);
    expect(jwksSchema.parse(keys.jwks).keys.map((k) => k.kid)).to.have.length(2);
    expect(jwksSchema.safeParse(JSON.stringify({ keys: [keys.signing.gateway] })).success, 'private').to.equal(false);
    const [publicKey] = jwksSchema.parse(keys.jwks).keys;
    expect(jwksSchema.safeParse(JSON.stringify({ keys: [{ ...publicKey, kid: 'nodot' }] })).success).to.equal(false);
    expect(jwksSchema.safeParse('{').success).to.equal(false);
  });

  it('refuses a signing key whose id names another issuer, or that is not a private key', async () => {
    const keys = generateTrustKeys(['flows']);
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => '',
        (error: Error) => error.message,
      );
    expect(await failure(importSigningKey('gateway', JSON.stringify(keys.signing.flows)))).to.match(/"gateway\."/);
    expect(
      await failure(importSigningKey('flows', JSON.stringify((JSON.parse(keys.jwks) as { keys: unknown[] }).keys[0]))),
    ).to.match(/SVC_SIGNING_KEY/);
    const signer = new PrincipalSigner('flows', importSigningKey('flows', JSON.stringify(keys.signing.flows)));
    await signer.ready();
  });

  it('reads a PKCS#8 PEM with its key id', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect((await importSigningKey('gateway', pem, 'gateway.pem')).kid).to.equal('gateway.pem');
  });
});
