import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { loadKeyring, type KeyringNaming, type LoadedKeyring, type SecretKeyring, type SecretOwner } from '@svc/kit';
import type { PartnerConfig } from '../config';
import type { PartnerWebhookRow } from '../entities';

/**
 * The signing secrets of partner webhooks (docs/partner-webhooks.md, docs/decisions/0230, 0231): Standard Webhooks'
 * symmetric scheme, `whsec_` + the base64 of 32 random bytes (the spec allows 24–64), sealed at rest with the
 * service's keyring (PARTNER_SECRETS_KEYS, the kit's AES-256-GCM sealing bound to the webhook's org and id).
 */
export const SECRET_PREFIX = 'whsec_';
export const SECRET_BYTES = 32;

export const PARTNER_SECRETS_NAMING: KeyringNaming = {
  secretOf: 'the signing secret of partner webhook',
  setting: 'PARTNER_SECRETS_KEYS',
};
export const EMBEDDED_KEY_FILE = 'partner-secrets.key';

/** Opened secrets kept in memory (each delivery attempt needs them): bounded, keyed by the sealed value. */
const MAX_OPENED = 10_000;

/** A fresh `whsec_…` secret. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The keyring sealing webhook secrets: PARTNER_SECRETS_KEYS, else (development) a generated key file. */
export function loadPartnerKeyring(
  config: Pick<PartnerConfig, 'PARTNER_SECRETS_KEYS' | 'PARTNER_SECRETS_KEY_FILE' | 'NODE_ENV' | 'DB_URL'>,
): LoadedKeyring {
  return loadKeyring({
    naming: PARTNER_SECRETS_NAMING,
    keys: config.PARTNER_SECRETS_KEYS,
    keyFile: config.PARTNER_SECRETS_KEY_FILE,
    embeddedFileName: EMBEDDED_KEY_FILE,
    NODE_ENV: config.NODE_ENV,
    DB_URL: config.DB_URL,
  });
}

/** The columns of a webhook that hold its secrets. */
export type SecretColumns = Pick<
  PartnerWebhookRow,
  'id' | 'orgId' | 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'
>;

/** A secret to show once, and the columns that store it. */
export interface IssuedSecret {
  secret: string;
  columns: Pick<PartnerWebhookRow, 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>;
}

/**
 * Issues, rotates and opens webhook secrets. The delivery engine calls `signingSecrets` for every attempt: the
 * current secret, and the previous one while its grace period lasts (each signs, so a receiver holding either
 * verifies).
 */
export class WebhookSecrets {
  private readonly opened = new LRUCache<string, string>({ max: MAX_OPENED });

  constructor(
    readonly keyring: SecretKeyring,
    /** How long a rotated-out secret keeps signing (PARTNER_SECRET_ROTATION_GRACE_MS). */
    readonly rotationGraceMs: number,
  ) {}

  /** The first secret of a new webhook (`owner`: its org and id). */
  issue(owner: SecretOwner): IssuedSecret {
    const secret = newWebhookSecret();
    return {
      secret,
      columns: {
        secretSealed: this.keyring.seal(secret, owner),
        previousSecretSealed: null,
        previousSecretExpiresAt: null,
      },
    };
  }

  /**
   * A new current secret; the current one becomes the previous, signing until `at` + the grace period. Rotating again
   * during a grace drops the older previous secret: only the two newest ever sign.
   */
  rotate(row: SecretColumns, at: Date): IssuedSecret {
    const secret = newWebhookSecret();
    const graceEnds = this.rotationGraceMs > 0 ? new Date(at.getTime() + this.rotationGraceMs) : null;
    return {
      secret,
      columns: {
        secretSealed: this.keyring.seal(secret, row),
        previousSecretSealed: graceEnds ? row.secretSealed : null,
        previousSecretExpiresAt: graceEnds,
      },
    };
  }

  /**
   * The secrets that sign a delivery of this webhook at `at`, current first: the previous one too while
   * `previous_secret_expires_at` is after `at`. Throws the kit's SealedSecretError when a sealed value cannot be opened
   * with the configured keys.
   */
  signingSecrets(row: SecretColumns, at: Date = new Date()): string[] {
    const secrets = [this.open(row.secretSealed, row)];
    if (row.previousSecretSealed && row.previousSecretExpiresAt && row.previousSecretExpiresAt.getTime() > at.getTime())
      secrets.push(this.open(row.previousSecretSealed, row));
    return secrets;
  }

  private open(sealed: string, owner: SecretOwner): string {
    const cached = this.opened.get(sealed);
    if (cached !== undefined) return cached;
    const plaintext = this.keyring.open(sealed, { orgId: owner.orgId, id: owner.id });
    this.opened.set(sealed, plaintext);
    return plaintext;
  }
}
