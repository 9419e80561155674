import { Metadata } from '@grpc/grpc-js';
import { SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';
import { Principal } from '@svc/proto/common/v1';
import { TOKEN_ALGORITHM } from './jwks';
import { importSigningKey, type SigningKey } from './keys';

/** The gRPC metadata key carrying the principal token. */
export const PRINCIPAL_HEADER = 'x-svc-principal';
/** A token is valid this long after it was issued (the most a verifier accepts). */
export const TOKEN_LIFETIME_SECONDS = 60;
/** A cached token is replaced once it is this old: half its life, so one in flight never arrives expired. */
export const RESIGN_AFTER_MS = 30_000;
/** The principal, as `Principal.toJSON`, rides in this claim. */
export const PRINCIPAL_CLAIM = 'principal';

/** Milliseconds since the epoch; injected so tests move time instead of sleeping. */
export type Clock = () => number;

interface Signed {
  token: Promise<string>;
  issuedAt: number;
}

/**
 * Signs principal tokens as one issuer (a JWS with `iss`, `aud`, `iat`, `exp` and a `kid` header; docs/decisions/0065).
 * A token is signed once per (principal, audience) and reused until RESIGN_AFTER_MS, so a call costs a map lookup.
 */
export class PrincipalSigner {
  private readonly key: Promise<SigningKey>;
  private readonly signed = new LRUCache<string, Signed>({ max: 10_000 });

  constructor(
    readonly issuer: string,
    key: SigningKey | Promise<SigningKey>,
    private readonly clock: Clock = Date.now,
  ) {
    this.key = Promise.resolve(key);
    // A bad key is reported by `ready()` at start-up; until then the rejection is not "unhandled".
    this.key.catch(() => undefined);
  }

  /** A signer from SVC_SIGNING_KEY / SVC_SIGNING_KEY_ID. */
  static fromSetting(issuer: string, key: string, kid?: string, clock?: Clock): PrincipalSigner {
    return new PrincipalSigner(issuer, importSigningKey(issuer, key, kid), clock);
  }

  /** Resolves once the key is imported; rejects with the configuration error otherwise. */
  async ready(): Promise<void> {
    await this.key;
  }

  /** A fresh token for `principal` at `audience` (no cache: SignedPrincipals and `token` keep their own). */
  async sign(principal: Principal, audience: string): Promise<string> {
    const { key, kid } = await this.key;
    const issuedAt = Math.floor(this.clock() / 1000);
    return new SignJWT({ [PRINCIPAL_CLAIM]: Principal.toJSON(principal) })
      .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid })
      .setIssuer(this.issuer)
      .setAudience(audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + TOKEN_LIFETIME_SECONDS)
      .sign(key);
  }

  /** The token for `principal` at `audience`, signed at most once per RESIGN_AFTER_MS. */
  token(principal: Principal, audience: string): Promise<string> {
    const cacheKey = `${audience}\n${JSON.stringify(Principal.toJSON(principal))}`;
    const now = this.clock();
    const cached = this.signed.get(cacheKey);
    if (cached && now - cached.issuedAt < RESIGN_AFTER_MS) return cached.token;
    const token = this.sign(principal, audience);
    this.signed.set(cacheKey, { token, issuedAt: now });
    token.catch(() => this.signed.delete(cacheKey));
    return token;
  }

  /** gRPC metadata carrying `principal` to `audience`. */
  async metadata(principal: Principal, audience: string): Promise<Metadata> {
    return principalMetadata(await this.token(principal, audience));
  }
}

export function principalMetadata(token: string): Metadata {
  const metadata = new Metadata();
  metadata.set(PRINCIPAL_HEADER, token);
  return metadata;
}
