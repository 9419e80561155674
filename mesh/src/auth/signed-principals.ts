import type { Principal, PrincipalCodec } from '@svc/kit';

export interface SignedPrincipal {
  value: string;
  signature: string;
}

/**
 * The signed form of each principal, made once: the authenticator's cache hands every request of a credential the
 * same principal object, so the gateway signs it once per cache entry instead of once per request. Entries go with
 * their principal.
 */
export class SignedPrincipals {
  private readonly byPrincipal = new WeakMap<Principal, SignedPrincipal>();

  constructor(private readonly codec: PrincipalCodec) {}

  of(principal: Principal): SignedPrincipal {
    let signed = this.byPrincipal.get(principal);
    if (!signed) {
      signed = this.codec.encode(principal);
      this.byPrincipal.set(principal, signed);
    }
    return signed;
  }
}
