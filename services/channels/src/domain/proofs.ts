import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { InvalidArgument, Unauthenticated, requireOrg, requireSystem, type Principal } from '@svc/kit';
import type { VerifiedVisitor, VerifyVisitorProofRequest } from '@svc/proto/channels/v1';
import { findWebIntegration } from './web-integrations';
import type { IdentitySecrets } from './secrets';

/** Clock skew allowed between the customer's backend (which signs the jwt) and this service, on `exp` and `nbf`. */
const CLOCK_TOLERANCE_SECONDS = 5;
const PROFILE_CLAIMS = ['name', 'email', 'phone'] as const;
const MAX_USER_ID = 255;

function refused(reason: string): never {
  throw new Unauthenticated(`visitor proof refused: ${reason}`, { reason });
}

/** The reason a jose error gives, in words a customer debugging their integration understands. */
function joseReason(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'expired';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'bad signature';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'algorithm not allowed (HS256 only)';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return 'not yet valid (nbf)';
    if (error.reason === 'missing') return `${error.claim} is required`;
    return `invalid ${error.claim} claim`;
  }
  return 'malformed token';
}

/**
 * The jwt proof (spec 2.4): HS256 only (`alg` pinned, so `none` and an RS256/HS256 confusion are refused), signed
 * with the identity secret; `exp` and `sub` required, `nbf` honoured; `exp` no further than `maxAgeSeconds` from
 * `iat` and from now. Follows jose's `jwtVerify` options (algorithms, requiredClaims, clockTolerance).
 */
export async function verifyJwt(token: string, secret: string, maxAgeSeconds: number): Promise<VerifiedVisitor> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      algorithms: ['HS256'],
      requiredClaims: ['exp', 'sub'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    }));
  } catch (error) {
    return refused(joseReason(error));
  }
  const exp = payload.exp as number;
  const nowSeconds = Math.floor(Date.now() / 1000);
  if (exp - nowSeconds > maxAgeSeconds + CLOCK_TOLERANCE_SECONDS)
    refused(`too long-lived: exp is more than ${maxAgeSeconds} s away`);
  if (typeof payload.iat === 'number' && exp - payload.iat > maxAgeSeconds)
    refused(`too long-lived: exp - iat is more than ${maxAgeSeconds} s`);
  const userId = typeof payload.sub === 'string' ? payload.sub.trim() : '';
  if (!userId) refused('sub is required');
  if (userId.length > MAX_USER_ID) refused(`sub is longer than ${MAX_USER_ID} characters`);
  const claims: Record<string, string> = {};
  for (const name of PROFILE_CLAIMS) {
    const value = payload[name];
    if (typeof value === 'string' && value.trim()) claims[name] = value.trim();
  }
  return { userId, claimsJson: JSON.stringify(claims) };
}

/** The userHash proof: hex HMAC-SHA256 of the user id with the identity secret, compared in constant time. */
export function verifyUserHash(userId: string, userHash: string, secret: string): VerifiedVisitor {
  const id = userId.trim();
  if (!id) refused('userId is required');
  if (id.length > MAX_USER_ID) refused(`userId is longer than ${MAX_USER_ID} characters`);
  const expected = createHmac('sha256', secret).update(id, 'utf8').digest();
  const given = /^[0-9a-fA-F]{64}$/.test(userHash.trim()) ? Buffer.from(userHash.trim(), 'hex') : Buffer.alloc(0);
  // timingSafeEqual needs equal lengths; a malformed hash is refused without comparing.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) refused('userHash does not match');
  return { userId: id, claimsJson: '{}' };
}

/**
 * VerifyVisitorProof: widget-api as SYSTEM of the integration's org. The secret is opened from its sealed value on
 * every call (no cache), so a rotation refuses proofs made with the old secret from the next call on.
 */
export async function verifyVisitorProof(
  dataSource: DataSource,
  secrets: IdentitySecrets,
  principal: Principal,
  request: VerifyVisitorProofRequest,
): Promise<VerifiedVisitor> {
  requireSystem(principal);
  const orgId = requireOrg(principal);
  const { web } = await findWebIntegration(dataSource.manager, orgId, request.integrationId, 'integrationId');
  if (request.jwt !== undefined) return verifyJwt(request.jwt, secrets.open(web), web.jwtMaxAgeSeconds);
  if (request.userHash !== undefined)
    return verifyUserHash(request.userHash.userId, request.userHash.userHash, secrets.open(web));
  throw new InvalidArgument('a proof is required: jwt or userHash', { field: 'proof' });
}
