import { SignJWT, createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { TOKEN_ALGORITHM, Unauthenticated, issuerOfKeyId, type Jwks, type SigningKey } from '@svc/kit';
import type { VisitorIdentityOfSession } from './backends';

export const SESSION_ISSUER = 'widget-api';
/** Not a service audience: a session token is presented by a browser to widget-api, never to a service. */
export const SESSION_AUDIENCE = 'widget-api.visitor';

/** What a visitor session token says: the session, its visitor, and the public key it was started with (CORS). */
export interface SessionClaims extends VisitorIdentityOfSession {
  sessionId: string;
  publicKey: string;
  expiresAt: number;
}

/** Whether a session still exists (an erased contact's sessions do not: decision 0173). */
export type SessionExists = (sessionId: string) => Promise<boolean>;

/**
 * Visitor session tokens (docs/decisions/0086): a JWS signed with widget-api's own key (the key of its principal
 * tokens, so every replica verifies with the installation's JWKS and no other secret exists), short-lived, and never
 * put in a URL. Checked: EdDSA only, a key id of widget-api, issuer, audience, expiry, and that its session still
 * exists (decision 0173: an erasure deletes the contact's sessions, and their tokens stop working at once).
 */
export class SessionTokens {
  private readonly keys: JWTVerifyGetKey;

  constructor(
    private readonly signingKey: Promise<SigningKey>,
    jwks: Jwks,
    private readonly ttlSeconds: number,
    private readonly clock: () => number = Date.now,
    private readonly sessionExists: SessionExists = () => Promise.resolve(true),
  ) {
    this.keys = createLocalJWKSet(jwks);
  }

  async sign(claims: Omit<SessionClaims, 'expiresAt'>): Promise<{ token: string; expiresAt: number }> {
    const { key, kid } = await this.signingKey;
    const issuedAt = Math.floor(this.clock() / 1000);
    const expiresAt = issuedAt + this.ttlSeconds;
    const token = await new SignJWT({
      org: claims.orgId,
      ch: claims.channelId,
      ct: claims.contactId,
      pk: claims.publicKey,
    })
      .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid })
      .setIssuer(SESSION_ISSUER)
      .setAudience(SESSION_AUDIENCE)
      .setSubject(claims.sessionId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(key);
    return { token, expiresAt: expiresAt * 1000 };
  }

  async verify(token: string | undefined): Promise<SessionClaims> {
    if (!token) throw new Unauthenticated('a visitor session token is required (Authorization: Bearer)');
    const claims = await this.claimsOf(token);
    if (!(await this.sessionExists(claims.sessionId))) throw new Unauthenticated('visitor session refused: erased');
    return claims;
  }

  private async claimsOf(token: string): Promise<SessionClaims> {
    try {
      if (issuerOfKeyId(decodeProtectedHeader(token).kid ?? '') !== SESSION_ISSUER) throw new Error('foreign key');
      const { payload } = await jwtVerify(token, this.keys, {
        algorithms: [TOKEN_ALGORITHM],
        issuer: SESSION_ISSUER,
        audience: SESSION_AUDIENCE,
        currentDate: new Date(this.clock()),
        requiredClaims: ['sub', 'exp', 'org', 'ch', 'ct', 'pk'],
      });
      return {
        sessionId: String(payload.sub),
        orgId: String(payload.org),
        channelId: String(payload.ch),
        contactId: String(payload.ct),
        publicKey: String(payload.pk),
        expiresAt: (payload.exp ?? 0) * 1000,
      };
    } catch (error) {
      throw new Unauthenticated(`visitor session refused: ${(error as Error).message}`);
    }
  }
}

/** The bearer token of a request's `Authorization` header. */
export function bearerOf(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return match?.[1];
}
