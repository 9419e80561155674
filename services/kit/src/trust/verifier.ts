import type { Metadata } from '@grpc/grpc-js';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { LRUCache } from 'lru-cache';
import { Principal } from '@svc/proto/common/v1';
import { Unauthenticated } from '../errors';
import { issuerOfKeyId, TOKEN_ALGORITHM, type Jwks } from './jwks';
import { mayPresent } from './policy';
import { PRINCIPAL_CLAIM, PRINCIPAL_HEADER, TOKEN_LIFETIME_SECONDS, type Clock } from './signer';

/** Seconds of clock difference between pods tolerated on `iat` and `exp`. */
const CLOCK_TOLERANCE_SECONDS = 5;

interface Verified {
  principal: Principal;
  expiresAt: number;
}

/**
 * Verifies the principal tokens sent to one service (its name is the audience): signature by a key of the JWKS, the
 * issuer its key id names, audience, expiry (at most TOKEN_LIFETIME_SECONDS after `iat`) and whether that issuer may
 * present that principal here (policy.ts). A verified token is remembered until it expires, so each token costs one
 * signature check per process.
 */
export class PrincipalVerifier {
  private readonly keys: JWTVerifyGetKey;
  private readonly verified = new LRUCache<string, Verified>({ max: 10_000 });

  constructor(
    readonly audience: string,
    jwks: Jwks,
    private readonly clock: Clock = Date.now,
  ) {
    this.keys = createLocalJWKSet(jwks);
  }

  async verify(token: string | undefined): Promise<Principal> {
    if (!token) throw new Unauthenticated('missing principal token');
    const now = this.clock();
    const cached = this.verified.get(token);
    if (cached) {
      if (now < cached.expiresAt) return cached.principal;
      this.verified.delete(token);
      throw new Unauthenticated('principal token expired');
    }
    const verified = await this.check(token, now);
    this.verified.set(token, verified);
    return verified.principal;
  }

  fromMetadata(metadata: Metadata): Promise<Principal> {
    const value = metadata.get(PRINCIPAL_HEADER)[0];
    return this.verify(typeof value === 'string' ? value : value?.toString('utf8'));
  }

  private async check(token: string, now: number): Promise<Verified> {
    let issuer: string;
    try {
      issuer = issuerOfKeyId(decodeProtectedHeader(token).kid ?? '');
    } catch {
      throw new Unauthenticated('malformed principal token');
    }
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        algorithms: [TOKEN_ALGORITHM],
        issuer,
        audience: this.audience,
        currentDate: new Date(now),
        maxTokenAge: TOKEN_LIFETIME_SECONDS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['iat', 'exp', PRINCIPAL_CLAIM],
      }));
    } catch (error) {
      throw new Unauthenticated(`principal token refused: ${(error as Error).message}`);
    }
    const { iat = 0, exp = 0 } = payload;
    if (exp - iat > TOKEN_LIFETIME_SECONDS) throw new Unauthenticated('principal token lives too long');
    const principal = Principal.fromJSON(payload[PRINCIPAL_CLAIM]);
    if (!mayPresent(issuer, this.audience, principal)) {
      throw new Unauthenticated(`${issuer} may not present this principal to ${this.audience}`);
    }
    return { principal, expiresAt: (exp + CLOCK_TOLERANCE_SECONDS) * 1000 };
  }
}
