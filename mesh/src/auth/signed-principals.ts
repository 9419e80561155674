import { RESIGN_AFTER_MS, type Clock, type Principal, type PrincipalSigner } from '@svc/kit';
import { SUBGRAPHS } from '../subgraphs';

/** The tokens carrying one principal, by subgraph name: each is signed for the deployable serving that subgraph. */
export type PrincipalTokens = Record<string, string>;

interface Signed {
  issuedAt: number;
  tokens: Promise<PrincipalTokens>;
}

/**
 * The signed tokens of each principal, made once per RESIGN_AFTER_MS: the authenticator's cache hands every request
 * of a credential the same principal object, so the gateway signs it (once per deployable) per cache entry and per
 * half token lifetime instead of once per request. Entries go with their principal.
 */
export class SignedPrincipals {
  private readonly byPrincipal = new WeakMap<Principal, Signed>();

  constructor(
    private readonly signer: PrincipalSigner,
    private readonly clock: Clock = Date.now,
  ) {}

  of(principal: Principal): Promise<PrincipalTokens> {
    const now = this.clock();
    let signed = this.byPrincipal.get(principal);
    if (!signed || now - signed.issuedAt >= RESIGN_AFTER_MS) {
      signed = { issuedAt: now, tokens: this.signForEverySubgraph(principal) };
      this.byPrincipal.set(principal, signed);
    }
    return signed.tokens;
  }

  private async signForEverySubgraph(principal: Principal): Promise<PrincipalTokens> {
    const byApp = new Map<string, Promise<string>>();
    for (const { app } of SUBGRAPHS) if (!byApp.has(app)) byApp.set(app, this.signer.sign(principal, app));
    const tokens: PrincipalTokens = {};
    for (const { name, app } of SUBGRAPHS) tokens[name] = await (byApp.get(app) as Promise<string>);
    return tokens;
  }
}
