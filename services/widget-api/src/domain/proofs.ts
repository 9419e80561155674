import { z } from 'zod';
import { InvalidArgument, Unauthenticated } from '@svc/kit';
import type { Backends } from './backends';
import type { GoogleIdTokens } from './google-id-token';
import type { Integration } from './integrations';

const text = (max: number) => z.string().trim().min(1).max(max);

/** Spec 2.4 VisitorIdentity, plus the session the visitor had before identifying (its anonymous chat moves). */
export const visitorIdentitySchema = z.object({
  googleIdToken: text(8192).optional(),
  jwt: text(8192).optional(),
  userId: text(255).optional(),
  userHash: text(128).optional(),
  name: text(200).optional(),
  email: text(320).optional(),
  phone: text(40).optional(),
  attributes: z.record(z.string().max(100), z.unknown()).optional(),
  refreshToken: text(200).optional(),
});
export type VisitorIdentityInput = z.infer<typeof visitorIdentitySchema>;

/** The profile a visitor claims: stored on its contact, never used to find one (docs/decisions/0087). */
export interface ClaimedProfile {
  name?: string;
  email?: string;
  phone?: string;
  attributes?: Record<string, unknown>;
}

export interface ProvenVisitor {
  /** The contact's CHANNEL_USER_ID on this integration. */
  userId: string;
  /** What the proof itself says (a jwt's claims, Google's verified name and email), under the claimed profile. */
  provenProfile: ClaimedProfile;
}

export type ProofKind = 'googleIdToken' | 'jwt' | 'userHash';

/**
 * The proof that decides (spec 2.4/5.2): googleIdToken, else jwt, else userId + userHash. Only that one is checked;
 * when it fails the handshake is refused, whatever weaker proofs came with it.
 */
export function decidingProof(input: VisitorIdentityInput): ProofKind {
  if ((input.userId === undefined) !== (input.userHash === undefined)) {
    throw new InvalidArgument('userId and userHash go together', { field: input.userId ? 'userHash' : 'userId' });
  }
  if (input.googleIdToken) return 'googleIdToken';
  if (input.jwt) return 'jwt';
  if (input.userId) return 'userHash';
  throw new InvalidArgument('an identified handshake needs googleIdToken, jwt, or userId with userHash', {
    field: 'googleIdToken',
  });
}

/** Checks the deciding proof: Google tokens here, jwt and userHash at channels (the secret never leaves it). */
export async function prove(
  input: VisitorIdentityInput,
  { orgId, integration }: Integration,
  backends: Backends,
  google: GoogleIdTokens,
): Promise<ProvenVisitor> {
  const kind = decidingProof(input);
  if (kind === 'googleIdToken') {
    const identity = await google.verify(input.googleIdToken ?? '', integration.security?.googleClientId ?? '');
    // A prefix keeps Google's subject apart from the site's own user ids on the same integration.
    return {
      userId: `google:${identity.subject}`,
      provenProfile: { name: identity.name, email: identity.verifiedEmail },
    };
  }
  const verified = await backends.verifyVisitorProof(orgId, {
    integrationId: integration.id,
    ...(kind === 'jwt'
      ? { jwt: input.jwt }
      : { userHash: { userId: input.userId ?? '', userHash: input.userHash ?? '' } }),
  });
  if (!verified.userId) throw new Unauthenticated('the proof names no user');
  return { userId: verified.userId, provenProfile: claimsOf(verified.claimsJson) };
}

function claimsOf(json: string): ClaimedProfile {
  let claims: unknown;
  try {
    claims = JSON.parse(json || '{}');
  } catch {
    return {};
  }
  if (!claims || typeof claims !== 'object') return {};
  const pick = (key: string) => {
    const value = (claims as Record<string, unknown>)[key];
    return typeof value === 'string' && value ? value : undefined;
  };
  return { name: pick('name'), email: pick('email'), phone: pick('phone') };
}
