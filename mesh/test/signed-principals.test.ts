import { expect } from 'chai';
import {
  ApiScope,
  PrincipalVerifier,
  RESIGN_AFTER_MS,
  apiKeyPrincipal,
  jwksSchema,
  newId,
  testSigner,
  testTrustKeys,
} from '@svc/kit';
import { SignedPrincipals } from '../src/auth/signed-principals';
import { SUBGRAPHS } from '../src/subgraphs';

const principal = () => apiKeyPrincipal(newId(), [ApiScope.MESSAGES_READ]);

describe('gateway.SignedPrincipals', () => {
  let time = Date.now();
  const clock = () => time;
  const verifier = (audience: string) => new PrincipalVerifier(audience, jwksSchema.parse(testTrustKeys().jwks), clock);

  it('signs a principal once and hands the same tokens to every request that carries it', async () => {
    const signed = new SignedPrincipals(testSigner('gateway', clock), clock);
    const caller = principal();
    const first = signed.of(caller);
    expect(signed.of(caller)).to.equal(first);
    expect(await verifier('inbox').verify((await first).inbox)).to.deep.equal(caller);
  });

  it("signs one token per subgraph, each for its own deployable's audience", async () => {
    const tokens = await new SignedPrincipals(testSigner('gateway', clock), clock).of(principal());
    expect(Object.keys(tokens)).to.have.members(SUBGRAPHS.map((s) => s.name));
    expect(tokens.inboxLabels).to.equal(tokens.inbox);
    const refused = await verifier('identity')
      .verify(tokens.inbox)
      .then(
        () => undefined,
        (error: Error) => error.message,
      );
    expect(refused).to.match(/aud/);
  });

  it('signs again once a token is half its life old, so none arrives expired', async () => {
    const signed = new SignedPrincipals(testSigner('gateway', clock), clock);
    const caller = principal();
    const first = await signed.of(caller);
    time += RESIGN_AFTER_MS - 1;
    expect(await signed.of(caller)).to.equal(first);
    time += 2_000;
    const second = await signed.of(caller);
    expect(second.inbox).to.not.equal(first.inbox);
    expect(await verifier('inbox').verify(second.inbox)).to.deep.equal(caller);
  });

  it('signs each principal for itself', async () => {
    const signed = new SignedPrincipals(testSigner('gateway', clock), clock);
    const [a, b] = [principal(), principal()];
    expect((await verifier('inbox').verify((await signed.of(b)).inbox)).orgId).to.equal(b.orgId);
    expect((await signed.of(a)).inbox).to.not.equal((await signed.of(b)).inbox);
  });
});
