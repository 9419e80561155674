import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isId, newId } from '@svc/kit';

/**
 * Bearer credentials: API keys `svc_<keyId>_<secret>` and dashboard session tokens `sess_<sessionId>_<secret>`.
 * Secrets are 32 random bytes, so a fast SHA-256 stored hash is as strong as a slow one (there is no dictionary to
 * attack) and lets every request authenticate without bcrypt's cost; see docs/decisions/0003-credential-hashing.md.
 */
export type CredentialKind = 'key' | 'session';

const PREFIX: Record<CredentialKind, string> = { key: 'svc', session: 'sess' };
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface IssuedCredential {
  id: string;
  secretHash: string;
  credential: string;
}

export function issueCredential(kind: CredentialKind): IssuedCredential {
  const id = newId();
  const secret = randomBytes(32).toString('base64url');
  return { id, secretHash: hashSecret(secret), credential: `${PREFIX[kind]}_${id}_${secret}` };
}

export function parseCredential(credential: string): { kind: CredentialKind; id: string; secret: string } | undefined {
  const first = credential.indexOf('_');
  const second = credential.indexOf('_', first + 1);
  if (first < 0 || second < 0) return undefined;
  const prefix = credential.slice(0, first);
  const id = credential.slice(first + 1, second);
  const secret = credential.slice(second + 1);
  const kind = prefix === 'svc' ? 'key' : prefix === 'sess' ? 'session' : undefined;
  if (!kind || !isId(id) || !SECRET_PATTERN.test(secret)) return undefined;
  return { kind, id, secret };
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
