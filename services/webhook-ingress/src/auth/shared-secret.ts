import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcrypt';
import { BcryptSlots, DEFAULT_BCRYPT_QUEUE } from './bcrypt-slots';

const MAX_ENTRIES = 10_000;

/** A generated Shared Secret: 32 random bytes, so nothing about it can be guessed. */
export function generateSharedSecret(): string {
  return `whs_${randomBytes(32).toString('base64url')}`;
}

export function hashSharedSecret(secret: string, cost: number): Promise<string> {
  return bcrypt.hash(secret, cost);
}

/**
 * Checks `x-webhook-secret` against the stored bcrypt hash without paying bcrypt (~50 ms of CPU at a safe cost) on
 * every request, which would make the public URL a denial-of-service lever (docs/decisions/0011):
 *
 * - A secret that verified once is remembered as HMAC-SHA256(process key, secret) for that connection and secret
 *   version; later requests compare that fingerprint in constant time. The process key is random per process and
 *   never stored, so the cache holds nothing that verifies anywhere else, and rotation (a new version) misses it.
 * - A secret that failed is remembered the same way, so repeating a wrong secret costs one HMAC.
 * - At most `concurrency` bcrypt comparisons run at once, so a flood of random secrets burns at most that many cores;
 *   further unknown secrets wait in a line of at most `maxWaiting`, and beyond it `verify` throws VerificationBusy
 *   (the caller answers a retryable 500, not 401: an uncompared secret may be right, e.g. the new one just after a
 *   rotation during a flood). Legitimate senders are already in the cache, so a flood cannot starve them, and
 *   concurrent requests with the same secret share one comparison (a sender's first burst pays bcrypt once).
 */
export class SharedSecretVerifier {
  private readonly processKey = randomBytes(32);
  private readonly verified = new Map<string, Buffer>();
  private readonly refused = new Map<string, true>();
  /** Comparisons under way, shared by concurrent requests presenting the same secret (a sender's first burst). */
  private readonly pending = new Map<string, Promise<boolean>>();
  private readonly slots: BcryptSlots;

  constructor(concurrency: number, maxWaiting = DEFAULT_BCRYPT_QUEUE) {
    this.slots = new BcryptSlots(concurrency, maxWaiting);
  }

  /** Throws VerificationBusy when the secret could not be compared (every slot busy, the line full). */
  async verify(
    connectionId: string,
    secretVersion: number,
    hash: string,
    presented: string | undefined,
  ): Promise<boolean> {
    if (!presented || presented.length > 200) return false;
    const fingerprint = createHmac('sha256', this.processKey).update(presented).digest();
    const slot = `${connectionId}:${secretVersion}`;
    const known = this.verified.get(slot);
    if (known && timingSafeEqual(known, fingerprint)) return true;
    const attempt = `${slot}:${fingerprint.toString('base64')}`;
    if (this.refused.has(attempt)) return false;
    const pending = this.pending.get(attempt);
    if (pending) return pending;
    const comparison = this.compare(presented, hash, slot, attempt, fingerprint);
    this.pending.set(attempt, comparison);
    return comparison;
  }

  private async compare(presented: string, hash: string, slot: string, attempt: string, fingerprint: Buffer) {
    try {
      const ok = await this.slots.run(() => bcrypt.compare(presented, hash));
      if (ok) remember(this.verified, slot, fingerprint);
      else remember(this.refused, attempt, true);
      return ok;
    } finally {
      this.pending.delete(attempt);
    }
  }
}

/** Insertion-ordered maps drop their oldest entry when full (a bounded cache without a dependency). */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ENTRIES) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
