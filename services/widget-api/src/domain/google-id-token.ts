import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { Unauthenticated, Unavailable } from '@svc/kit';

/** Google signs ID tokens with either spelling of its issuer (https://developers.google.com/identity/gsi/web/guides/verify-google-id-token). */
const GOOGLE_ISSUERS = ['accounts.google.com', 'https://accounts.google.com'];
/** Google's ID tokens are RS256; pinning it refuses `none` and HS/RS confusion whatever the header says. */
const GOOGLE_ALGORITHMS = ['RS256'];
/** Seconds of clock difference tolerated on `exp`, `nbf` and `iat`. */
const CLOCK_TOLERANCE_SECONDS = 5;

export interface GoogleIdentity {
  /** Google's stable account id. */
  subject: string;
  /** Set only when Google says it is verified (`email_verified`). */
  verifiedEmail?: string;
  name?: string;
}

/**
 * Verifies Google ID tokens with jose against Google's published keys (createRemoteJWKSet fetches and caches the JWKS,
 * refetching on an unknown `kid` at most every 30 s): signature, issuer, audience (the integration's Google client
 * id), `exp` and `nbf`. `email_verified` decides whether the email may be used.
 */
export class GoogleIdTokens {
  private readonly keys: JWTVerifyGetKey;

  constructor(
    jwksUrl: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.keys = createRemoteJWKSet(new URL(jwksUrl));
  }

  async verify(token: string, clientId: string): Promise<GoogleIdentity> {
    if (!clientId) throw new Unauthenticated('this integration does not accept Google sign-in');
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        algorithms: GOOGLE_ALGORITHMS,
        issuer: GOOGLE_ISSUERS,
        audience: clientId,
        currentDate: new Date(this.clock()),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (error) {
      // Google's keys could not be fetched: not the visitor's fault, and worth a retry (503, not 401).
      if (!(error instanceof errors.JOSEError) || error instanceof errors.JWKSTimeout)
        throw new Unavailable('Google sign-in keys are unreachable; try again');
      throw new Unauthenticated(`googleIdToken refused: ${(error as Error).message}`);
    }
    const email = typeof payload.email === 'string' ? payload.email : undefined;
    return {
      subject: String(payload.sub),
      verifiedEmail: payload.email_verified === true ? email : undefined,
      name: typeof payload.name === 'string' ? payload.name : undefined,
    };
  }
}
