import { expect } from 'chai';
import { SignJWT, UnsecuredJWT } from 'jose';
import { Unauthenticated, generateTrustKeys, importSigningKey } from '@svc/kit';
import { SESSION_AUDIENCE, SESSION_ISSUER, SessionTokens, bearerOf } from '../src/domain/session-tokens';

describe('WidgetApi.SessionTokens', () => {
  const keys = generateTrustKeys([SESSION_ISSUER, 'gateway']);
  let now = Date.parse('2026-01-01T00:00:00Z');
  const tokens = new SessionTokens(
    importSigningKey(SESSION_ISSUER, JSON.stringify(keys.signing[SESSION_ISSUER])),
    JSON.parse(keys.jwks),
    900,
    () => now,
  );
  const claims = { sessionId: 's1', orgId: 'o1', channelId: 'c1', contactId: 'p1', publicKey: 'pk_1' };

  it('verifies what it signed until it expires', async () => {
    const { token, expiresAt } = await tokens.sign(claims);
    expect(await tokens.verify(token)).to.deep.equal({ ...claims, expiresAt });
    now += 901_000;
    await expectRefused(tokens.verify(token));
  });

  it('refuses a token signed by another issuer key, an unsigned one, and a tampered one', async () => {
    const gateway = await importSigningKey('gateway', JSON.stringify(keys.signing.gateway));
    const foreign = await new SignJWT({ org: 'o1', ch: 'c1', ct: 'p1', pk: 'pk_1' })
      .setProtectedHeader({ alg: 'EdDSA', kid: gateway.kid })
      .setIssuer(SESSION_ISSUER)
      .setAudience(SESSION_AUDIENCE)
      .setSubject('s1')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(gateway.key);
    now = Date.now();
    await expectRefused(tokens.verify(foreign));
    const unsigned = new UnsecuredJWT({ org: 'o1', ch: 'c1', ct: 'p1', pk: 'pk_1' })
      .setIssuer(SESSION_ISSUER)
      .setAudience(SESSION_AUDIENCE)
      .setSubject('s1')
      .setExpirationTime('5m')
      .encode();
    await expectRefused(tokens.verify(unsigned));
    const { token } = await tokens.sign(claims);
    const [header, , signature] = token.split('.');
    const payload = Buffer.from(JSON.stringify({ ...claims, ct: 'someone-else' })).toString('base64url');
    await expectRefused(tokens.verify(`${header}.${payload}.${signature}`));
  });

  it('reads only a Bearer authorization', () => {
    expect(bearerOf('Bearer abc')).to.equal('abc');
    expect(bearerOf('Basic abc')).to.equal(undefined);
    expect(bearerOf(undefined)).to.equal(undefined);
  });
});

async function expectRefused(verifying: Promise<unknown>): Promise<void> {
  const error = await verifying.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(Unauthenticated);
}
