import { createPrivateKey, randomBytes } from 'node:crypto';
import { importJWK, importPKCS8, type CryptoKey, type JWK } from 'jose';
import { ConfigError } from '../config';
import { issuerOfKeyId, TOKEN_ALGORITHM } from './jwks';

export interface SigningKey {
  issuer: string;
  kid: string;
  key: CryptoKey;
}

/**
 * A deployable's signing key from SVC_SIGNING_KEY (a private JWK, carrying its `kid` unless SVC_SIGNING_KEY_ID gives
 * it, or a PKCS#8 PEM with SVC_SIGNING_KEY_ID). The key id must name `issuer`.
 */
export async function importSigningKey(issuer: string, text: string, kidSetting?: string): Promise<SigningKey> {
  const fail = (message: string) => new ConfigError(`invalid configuration:\n  SVC_SIGNING_KEY: ${message}`);
  const trimmed = text.trim();
  let key: CryptoKey;
  let kid = kidSetting;
  try {
    if (trimmed.startsWith('-----BEGIN')) {
      key = await importPKCS8(trimmed, TOKEN_ALGORITHM);
    } else {
      const jwk = JSON.parse(trimmed) as JWK;
      if (!jwk.d) throw new Error('the JWK has no private part');
      kid ||= jwk.kid;
      key = (await importJWK(jwk, TOKEN_ALGORITHM)) as CryptoKey;
    }
  } catch (error) {
    throw fail(`not an Ed25519 private key as a JWK or PKCS#8 PEM (${(error as Error).message})`);
  }
  if (!kid) throw fail('no key id: set SVC_SIGNING_KEY_ID or a "kid" in the JWK');
  if (issuerOfKeyId(kid) !== issuer) throw fail(`key id "${kid}" must start with "${issuer}."`);
  return { issuer, kid, key };
}

/** Private signing keys by issuer and the JWKS verifying them all: what `npm run keys:generate` prints. */
export interface TrustKeys {
  /** SVC_TRUST_JWKS for every deployable. */
  jwks: string;
  /** SVC_SIGNING_KEY of each issuer: a private JWK with its kid. */
  signing: Record<string, JWK>;
}

/** RFC 8410's PKCS#8 encoding of an Ed25519 private key: this fixed prefix, then the 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * A fresh Ed25519 private key as a JWK (its `x` is the public key), from a random seed imported as PKCS#8. Not
 * `generateKeyPairSync` and `export`: on Node 20 that can deadlock. Exporting a generated key as a JWK holds the key's
 * mutex while it allocates; a garbage collection then may run the finished generation job's destructor, which takes
 * the same mutex (a hung e2e run: ExportJWKEdKey → GC → ~KeyGenJob → uv_mutex_lock, docs/decisions/0065). A key
 * imported from bytes belongs to no generation job, and it is exported once.
 */
function newEd25519Jwk(): JWK {
  const seed = randomBytes(32);
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' }).export({
    format: 'jwk',
  }) as JWK;
}

/** A fresh Ed25519 key pair per issuer, its id `<issuer>.<suffix>` (suffix: the creation time unless given). */
export function generateTrustKeys(
  issuers: readonly string[],
  suffix = new Date().toISOString().replace(/[-:]|\.\d+/g, ''),
): TrustKeys {
  const signing: Record<string, JWK> = {};
  const keys: JWK[] = [];
  for (const issuer of issuers) {
    const { kty, crv, x, d } = newEd25519Jwk();
    const common = { kid: `${issuer}.${suffix}`, alg: TOKEN_ALGORITHM, use: 'sig' };
    signing[issuer] = { kty, crv, x, d, ...common };
    keys.push({ kty, crv, x, ...common });
  }
  return { jwks: JSON.stringify({ keys }), signing };
}
