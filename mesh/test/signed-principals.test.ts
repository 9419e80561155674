import { expect } from 'chai';
import { ApiScope, PrincipalCodec, apiKeyPrincipal, newId } from '@svc/kit';
import { SignedPrincipals } from '../src/auth/signed-principals';

const principal = () => apiKeyPrincipal(newId(), [ApiScope.MESSAGES_READ]);

describe('gateway.SignedPrincipals', () => {
  const codec = new PrincipalCodec('x'.repeat(32));

  it('signs a principal once and hands the same signed form to every request that carries it', () => {
    const signed = new SignedPrincipals(codec);
    const caller = principal();
    const first = signed.of(caller);
    expect(signed.of(caller)).to.equal(first);
    expect(codec.decode(first.value, first.signature)).to.deep.equal(caller);
  });

  it('signs each principal for itself', () => {
    const signed = new SignedPrincipals(codec);
    const [a, b] = [principal(), principal()];
    expect(codec.decode(signed.of(b).value, signed.of(b).signature).orgId).to.equal(b.orgId);
    expect(signed.of(a).value).to.not.equal(signed.of(b).value);
  });
});
