import { z } from 'zod';

/** Every principal token is signed with Ed25519 (JWS `alg` EdDSA). */
export const TOKEN_ALGORITHM = 'EdDSA';

/** A key id names its issuer: `<issuer>.<suffix>` (e.g. `gateway.2026-11-24`), so a key verifies only its issuer's tokens. */
export function issuerOfKeyId(kid: string): string {
  const dot = kid.indexOf('.');
  return dot > 0 ? kid.slice(0, dot) : '';
}

const publicJwkSchema = z
  .object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string().min(1),
    kid: z.string().refine((kid) => issuerOfKeyId(kid) !== '', 'kid must be <issuer>.<suffix>'),
    d: z.never({ message: 'a JWKS holds public keys only' }).optional(),
  })
  .loose();

/** `{"keys": [...]}` of public Ed25519 JWKs, as an environment variable holds it (JSON text). */
export const jwksSchema = z
  .string()
  .min(1)
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not JSON' });
      return z.NEVER;
    }
  })
  .pipe(z.object({ keys: z.array(publicJwkSchema).min(1) }));

export type Jwks = z.infer<typeof jwksSchema>;
