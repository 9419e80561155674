import { IsNull, MoreThan, Not, type DataSource } from 'typeorm';
import { ConnectionRow } from '../entities';
import { keyIdOf, type SecretKeyring } from '@svc/kit';

const MAX_CACHED = 10_000;
const RESEAL_BATCH = 500;

type SecretColumns = Pick<ConnectionRow, 'id' | 'orgId' | 'signingSecretSealed' | 'legacySigningSecret'>;

/**
 * The provider signing secrets of connections, sealed at rest. Opening one is an AES-GCM decryption (a few µs, but
 * on every verified request), so opened secrets are cached per connection and keyed by the sealed value itself: a
 * new secret (update) or a re-seal (rotation) is a different value and misses. The cache holds what the process
 * needs to verify requests anyway; it is never written anywhere.
 */
export class SigningSecrets {
  private readonly opened = new Map<string, { sealed: string; plaintext: string }>();

  constructor(readonly keyring: SecretKeyring) {}

  seal(plaintext: string, owner: { orgId: string; id: string }): string {
    return this.keyring.seal(plaintext, { orgId: owner.orgId, id: owner.id });
  }

  /** The plaintext signing secret of a connection, or undefined when it has none. Throws SealedSecretError. */
  reveal(row: SecretColumns): string | undefined {
    const sealed = row.signingSecretSealed;
    if (!sealed) return row.legacySigningSecret ?? undefined;
    const cached = this.opened.get(row.id);
    if (cached?.sealed === sealed) return cached.plaintext;
    const plaintext = this.keyring.open(sealed, { orgId: row.orgId, id: row.id });
    this.opened.delete(row.id);
    this.opened.set(row.id, { sealed, plaintext });
    if (this.opened.size > MAX_CACHED) {
      const oldest = this.opened.keys().next().value;
      if (oldest !== undefined) this.opened.delete(oldest);
    }
    return plaintext;
  }
}

export interface ResealReport {
  /** Plaintext secrets of earlier versions, now sealed. */
  sealed: number;
  /** Secrets sealed under another key, now under the active one. */
  rewrapped: number;
  /** Sealed values no configured key opens (left as they are; every request of that connection answers 500). */
  unreadable: { connectionId: string; error: string }[];
}

/**
 * Seals every plaintext signing secret left from before decision 0014 and re-seals under the active key every
 * secret sealed under another one (key rotation). Idempotent and safe to run on several replicas at once: each row
 * is updated only if it still holds the value that was read. Runs at start-up, in the migration Job and from
 * `cli/secrets.js reseal`.
 */
export async function resealSigningSecrets(dataSource: DataSource, keyring: SecretKeyring): Promise<ResealReport> {
  const report: ResealReport = { sealed: 0, rewrapped: 0, unreadable: [] };
  const repository = dataSource.getRepository(ConnectionRow);
  let after = '';
  for (;;) {
    const rows: SecretColumns[] = await repository.find({
      select: { id: true, orgId: true, signingSecretSealed: true, legacySigningSecret: true },
      where: [
        { id: MoreThan(after), legacySigningSecret: Not(IsNull()) },
        { id: MoreThan(after), signingSecretSealed: Not(IsNull()) },
      ],
      order: { id: 'ASC' },
      take: RESEAL_BATCH,
    });
    for (const row of rows) {
      const owner = { orgId: row.orgId, id: row.id };
      if (row.legacySigningSecret !== null && !row.signingSecretSealed) {
        const result = await repository.update(
          { id: row.id, legacySigningSecret: row.legacySigningSecret, signingSecretSealed: IsNull() },
          { signingSecretSealed: keyring.seal(row.legacySigningSecret, owner), legacySigningSecret: null },
        );
        report.sealed += result.affected ?? 0;
        continue;
      }
      const sealed = row.signingSecretSealed;
      if (!sealed) continue;
      if (row.legacySigningSecret !== null)
        await repository.update({ id: row.id, signingSecretSealed: sealed }, { legacySigningSecret: null });
      if (!keyring.isStale(sealed)) continue;
      let plaintext: string;
      try {
        plaintext = keyring.open(sealed, owner);
      } catch (error) {
        report.unreadable.push({ connectionId: row.id, error: (error as Error).message });
        continue;
      }
      const result = await repository.update(
        { id: row.id, signingSecretSealed: sealed },
        { signingSecretSealed: keyring.seal(plaintext, owner) },
      );
      report.rewrapped += result.affected ?? 0;
    }
    const last = rows[rows.length - 1];
    if (!last || rows.length < RESEAL_BATCH) break;
    after = last.id;
  }
  return report;
}

/** How many signing secrets each key id seals, plus plaintext ones left (`legacy`): `cli/secrets.js status`. */
export async function signingSecretsByKey(dataSource: DataSource): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const rows = await dataSource.getRepository(ConnectionRow).find({
    select: { id: true, signingSecretSealed: true, legacySigningSecret: true },
    where: [{ legacySigningSecret: Not(IsNull()) }, { signingSecretSealed: Not(IsNull()) }],
  });
  for (const row of rows) {
    const id = row.signingSecretSealed ? (keyIdOf(row.signingSecretSealed) ?? 'malformed') : 'legacy';
    counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
}
