import { expect } from 'chai';
import { UnsecuredJWT } from 'jose';
import { Unauthenticated, Unavailable } from '@svc/kit';
import { GoogleIdTokens } from '../src/domain/google-id-token';

describe('WidgetApi.GoogleIdTokens', () => {
  const token = new UnsecuredJWT({ sub: '1' }).setIssuer('https://accounts.google.com').setAudience('c').encode();
  const failure = (verifying: Promise<unknown>) =>
    verifying.then(
      () => undefined,
      (error: unknown) => error,
    );

  it('answers Unavailable, not Unauthenticated, when Google’s keys cannot be fetched', async () => {
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    const google = new GoogleIdTokens('http://127.0.0.1:9/certs');
    const signed = `eyJhbGciOiJSUzI1NiIsImtpZCI6ImsifQ.${token.split('.')[1]}.c2ln`;
    expect(await failure(google.verify(signed, 'c'))).to.be.instanceOf(Unavailable);
  });

  it('refuses any token when the integration has no Google client id, and an unsigned one always', async () => {
    const google = new GoogleIdTokens('http://127.0.0.1:9/certs');
    expect(await failure(google.verify(token, ''))).to.be.instanceOf(Unauthenticated);
    expect(await failure(google.verify(token, 'c'))).to.be.instanceOf(Unauthenticated);
  });
});
