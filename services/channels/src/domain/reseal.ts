import { MoreThan, Not, type DataSource } from 'typeorm';
import { keyIdOf, type SecretKeyring } from '@svc/kit';
import { WebIntegrationRow } from '../entities';

const BATCH = 500;

export interface ResealReport {
  /** Identity secrets sealed under another key, now under the active one. */
  rewrapped: number;
  /** Sealed values no configured key opens (left as they are; proofs of those integrations fail until rotated). */
  unreadable: { integrationId: string; error: string }[];
}

/**
 * Re-seals under the active key every identity secret sealed under another one, so an old CHANNELS_SECRETS_KEYS key
 * can be dropped after a key rotation (decision 0014's procedure). Idempotent and safe on several replicas at once:
 * a row is updated only if it still holds the value that was read (a rotation in between wins). Runs at start-up and from `main.js secrets reseal`.
 */
export async function resealIdentitySecrets(dataSource: DataSource, keyring: SecretKeyring): Promise<ResealReport> {
  const report: ResealReport = { rewrapped: 0, unreadable: [] };
  const repository = dataSource.getRepository(WebIntegrationRow);
  let after = '';
  for (;;) {
    const rows = await repository.find({
      select: { id: true, orgId: true, identitySecretSealed: true },
      where: { id: MoreThan(after), identitySecretSealed: Not('') },
      order: { id: 'ASC' },
      take: BATCH,
    });
    for (const row of rows) {
      const sealed = row.identitySecretSealed;
      if (!keyring.isStale(sealed)) continue;
      const owner = { orgId: row.orgId, id: row.id };
      let secret: string;
      try {
        secret = keyring.open(sealed, owner);
      } catch (error) {
        report.unreadable.push({ integrationId: row.id, error: (error as Error).message });
        continue;
      }
      const result = await repository.update(
        { id: row.id, identitySecretSealed: sealed },
        { identitySecretSealed: keyring.seal(secret, owner) },
      );
      report.rewrapped += result.affected ?? 0;
    }
    const last = rows[rows.length - 1];
    if (!last || rows.length < BATCH) break;
    after = last.id;
  }
  return report;
}

/** How many identity secrets each key id seals (`malformed`: not a sealed value): `secrets status`. */
export async function identitySecretsByKey(dataSource: DataSource): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const rows = await dataSource.getRepository(WebIntegrationRow).find({
    select: { id: true, identitySecretSealed: true },
    where: { identitySecretSealed: Not('') },
  });
  for (const row of rows) {
    const id = keyIdOf(row.identitySecretSealed) ?? 'malformed';
    counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
}
