import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (docs/decisions/0014: webhook-ingress's provider signing secrets; 0075: channels' identity secrets):
 * AES-256-GCM under a key-encryption key from configuration, stored as `v1:<keyId>:<iv>:<ciphertext+tag>` (base64url
 * parts), with the owning row's org and id as associated data, so a value copied into another row does not decrypt.
 * The first key seals; every key opens what it sealed.
 */
export interface SecretKey {
  id: string;
  key: Buffer;
}

/** Whose secret a sealed value is (its row's org and id): bound into the ciphertext as associated data. */
export interface SecretOwner {
  orgId: string;
  id: string;
}

/** How errors name what was sealed and where keys are configured (never key material). */
export interface KeyringNaming {
  /** e.g. `the signing secret of connection`: followed by the owner's id. */
  secretOf: string;
  /** The setting that lists the keys, e.g. WEBHOOK_SECRETS_KEYS. */
  setting: string;
}

const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** A sealed value that cannot be opened: wrong key, unknown key id, tampered, or moved from another row. */
export class SealedSecretError extends Error {
  override readonly name = 'SealedSecretError';
}

/**
 * A key list (e.g. WEBHOOK_SECRETS_KEYS): comma-separated `<keyId>:<base64 of 32 bytes>`; ids are 1–32 of `[A-Za-z0-9_-]` and unique.
 * Throws an error naming the offending entry (never its key material).
 */
export function parseKeys(spec: string): SecretKey[] {
  const keys = spec
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry, index) => {
      const at = entry.indexOf(':');
      const id = at < 0 ? '' : entry.slice(0, at);
      const material = at < 0 ? '' : entry.slice(at + 1);
      if (!KEY_ID.test(id))
        throw new Error(`entry ${index + 1}: expected <keyId>:<base64 key>, keyId of 1-32 letters, digits, _ or -`);
      const key = Buffer.from(material, 'base64');
      if (key.length !== 32 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(material))
        throw new Error(`key "${id}": must be the base64 of exactly 32 random bytes (openssl rand -base64 32)`);
      return { id, key };
    });
  if (!keys.length) throw new Error('at least one <keyId>:<base64 key> is required');
  const ids = keys.map((k) => k.id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate) throw new Error(`key id "${duplicate}" appears twice`);
  return keys;
}

/** A fresh `<keyId>:<base64>` entry for a key list. */
export function newKeyEntry(id = `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`): string {
  if (!KEY_ID.test(id)) throw new Error('keyId must be 1-32 letters, digits, _ or -');
  return `${id}:${randomBytes(32).toString('base64')}`;
}

function associatedData(owner: SecretOwner): Buffer {
  return Buffer.from(`${FORMAT}:${owner.orgId}:${owner.id}`, 'utf8');
}

/** The key id a sealed value names, or undefined when it is not a sealed value. */
export function keyIdOf(sealed: string): string | undefined {
  const parts = sealed.split(':');
  return parts.length === 4 && parts[0] === FORMAT ? parts[1] : undefined;
}

export class SecretKeyring {
  private readonly byId: Map<string, Buffer>;
  /** The key new values are sealed with (the first configured). */
  readonly activeKeyId: string;

  constructor(
    keys: SecretKey[],
    private readonly naming: KeyringNaming = { secretOf: 'the secret of', setting: 'the configured keys' },
  ) {
    const [active] = keys;
    if (!active) throw new Error('a keyring needs at least one key');
    this.activeKeyId = active.id;
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  get keyIds(): string[] {
    return [...this.byId.keys()];
  }

  seal(plaintext: string, owner: SecretOwner): string {
    const key = this.byId.get(this.activeKeyId) as Buffer;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(owner));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [FORMAT, this.activeKeyId, iv.toString('base64url'), body.toString('base64url')].join(':');
  }

  open(sealed: string, owner: SecretOwner): string {
    const [format, keyId, ivText, bodyText, ...rest] = sealed.split(':');
    if (format !== FORMAT || !keyId || !ivText || !bodyText || rest.length)
      throw new SealedSecretError(`${this.naming.secretOf} ${owner.id} is not a ${FORMAT} value`);
    const key = this.byId.get(keyId);
    if (!key)
      throw new SealedSecretError(
        `${this.naming.secretOf} ${owner.id} was sealed with key "${keyId}", which is not in ` +
          `${this.naming.setting} (configured: ${this.keyIds.join(', ')})`,
      );
    const iv = Buffer.from(ivText, 'base64url');
    const body = Buffer.from(bodyText, 'base64url');
    if (iv.length !== IV_BYTES || body.length < TAG_BYTES)
      throw new SealedSecretError(`${this.naming.secretOf} ${owner.id} is truncated`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(associatedData(owner));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new SealedSecretError(
        `${this.naming.secretOf} ${owner.id} does not authenticate under key "${keyId}" ` +
          '(other key material under that id, a tampered value, or a value copied from another row)',
      );
    }
  }

  /** Whether a sealed value should be re-sealed under the active key (rotation). */
  isStale(sealed: string): boolean {
    return keyIdOf(sealed) !== this.activeKeyId;
  }
}
