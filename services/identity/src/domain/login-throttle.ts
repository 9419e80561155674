import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { LessThan } from 'typeorm';
import {
  RateLimited,
  Unavailable,
  spendFromBucket,
  type BucketRate,
  type BucketSpend,
  type BucketState,
} from '@svc/kit';
import { LoginThrottleRow } from '../entities';

/** Failed logins allowed per email and per client address within a window (docs/decisions/0049-login-throttle.md). */
export interface LoginLimits {
  failuresPerEmail: number;
  failuresPerAddress: number;
  windowSeconds: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = { failuresPerEmail: 10, failuresPerAddress: 50, windowSeconds: 900 };

interface Holder {
  key: string;
  rate: BucketRate;
}

const PRUNE_EVERY_MS = 60_000;
/** Each round of a compare-and-set has one winner, so this many concurrent logins on one bucket all get through. */
const MAX_WRITE_ATTEMPTS = 32;

const hashed = (kind: string, value: string) => createHash('sha256').update(`${kind}\n${value}`).digest('hex');

/**
 * Token buckets of failed logins, one per email and one per client address, stored in identity's database so that
 * every replica spends from the same ones. A login reserves one token from each before bcrypt runs and gets it back
 * when the password is right, so only failures count, and a refused attempt costs no bcrypt.
 */
export class LoginThrottle {
  private prunedAt = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly limits: LoginLimits,
    private readonly now: () => number = Date.now,
  ) {}

  holders(email: string, clientAddress: string): Holder[] {
    const rate = (capacity: number) => ({ capacity, refillPerSecond: capacity / this.limits.windowSeconds });
    return [
      { key: hashed('email', email), rate: rate(this.limits.failuresPerEmail) },
      ...(clientAddress ? [{ key: hashed('address', clientAddress), rate: rate(this.limits.failuresPerAddress) }] : []),
    ];
  }

  /** Takes one token from every holder, or none: RATE_LIMITED with `retryAfterSeconds` when one of them is empty. */
  async reserve(holders: Holder[]): Promise<void> {
    await this.prune();
    const taken: Holder[] = [];
    for (const holder of holders) {
      const spent = await this.change(holder, (bucket) => spendFromBucket(bucket, 1, this.now(), holder.rate));
      if (!spent.ok) {
        await this.refund(taken);
        throw new RateLimited(`too many failed logins; retry in ${spent.retryAfterSeconds} s`, {
          retryAfterSeconds: String(spent.retryAfterSeconds),
        });
      }
      taken.push(holder);
    }
  }

  /** Gives back the token a successful login reserved. */
  async refund(holders: Holder[]): Promise<void> {
    for (const holder of holders)
      await this.change(holder, (bucket) => {
        const refilled = spendFromBucket(bucket, 0, this.now(), holder.rate).bucket;
        return { ok: true, bucket: { ...refilled, tokens: Math.min(holder.rate.capacity, refilled.tokens + 1) } };
      });
  }

  /** A compare-and-set on the holder's row (`version`), retried when another replica wrote it in between. */
  private async change(holder: Holder, next: (bucket: BucketState | undefined) => BucketSpend): Promise<BucketSpend> {
    const rows = this.dataSource.getRepository(LoginThrottleRow);
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt += 1) {
      const row = await rows.findOneBy({ holder: holder.key });
      const changed = next(row ? { tokens: row.tokens, at: row.atMs } : undefined);
      if (!changed.ok) return changed;
      const { tokens, at } = changed.bucket;
      if (!row) {
        try {
          await rows.insert({ holder: holder.key, tokens, atMs: at, version: 0 });
          return changed;
        } catch (error) {
          if (!(await rows.existsBy({ holder: holder.key }))) throw error;
          continue;
        }
      }
      const updated = await rows.update(
        { holder: holder.key, version: row.version },
        { tokens, atMs: at, version: row.version + 1 },
      );
      if (updated.affected === 1) return changed;
    }
    throw new Unavailable('login is busy; retry');
  }

  /** Forgets buckets that have filled up again (untouched for a whole window), at most once a minute. */
  private async prune(): Promise<void> {
    const now = this.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    await this.dataSource
      .getRepository(LoginThrottleRow)
      .delete({ atMs: LessThan(now - this.limits.windowSeconds * 1000) });
  }
}
