import { randomBytes } from 'node:crypto';
import type { SecretKeyring } from '@svc/kit';
import type { WebIntegrationRow } from '../entities';

/**
 * `<PUBLIC_KEY>`: `wk_` + 24 random bytes in base64url (32 characters). Random rather than derived from the id, so
 * keys cannot be enumerated or guessed from one another; URL-safe, so it travels in paths and data attributes.
 */
export function newPublicKey(): string {
  return `wk_${randomBytes(24).toString('base64url')}`;
}

export const PUBLIC_KEY_PATTERN = /^wk_[A-Za-z0-9_-]{32}$/;

/**
 * The identity secret: `wis_` + 32 random bytes in base64url. The whole string (its UTF-8 bytes) is the HMAC key of
 * `userHash` and the HS256 key of `jwt`, as a customer's backend library takes it.
 */
export function newIdentitySecret(): string {
  return `wis_${randomBytes(32).toString('base64url')}`;
}

/**
 * Identity secrets sealed at rest with the service's keyring (decision 0014's AES-256-GCM format, the integration's
 * org and id as associated data). Opened on every proof, never cached: a rotation takes effect on the next proof.
 */
export class IdentitySecrets {
  constructor(readonly keyring: SecretKeyring) {}

  seal(secret: string, owner: { orgId: string; id: string }): string {
    return this.keyring.seal(secret, owner);
  }

  open(row: Pick<WebIntegrationRow, 'orgId' | 'id' | 'identitySecretSealed'>): string {
    return this.keyring.open(row.identitySecretSealed, { orgId: row.orgId, id: row.id });
  }
}
