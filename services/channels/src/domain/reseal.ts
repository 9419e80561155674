import { MoreThan, Not, type DataSource, type EntityTarget, type ObjectLiteral } from 'typeorm';
import { keyIdOf, type SecretKeyring } from '@svc/kit';
import { PlatformChannelRow, WebIntegrationRow } from '../entities';

const BATCH = 500;

/**
 * Every column of this service that holds a value sealed with CHANNELS_SECRETS_KEYS, each row's org and id being the
 * associated data. One list, so a key rotation re-seals and `secrets status` counts all of them: web integrations'
 * identity secrets, platform channels' credentials and webhook secrets (erased to '' on disconnect).
 */
const SEALED_COLUMNS: readonly { entity: EntityTarget<ObjectLiteral>; column: string; owner: string }[] = [
  { entity: WebIntegrationRow, column: 'identitySecretSealed', owner: 'web integration' },
  { entity: PlatformChannelRow, column: 'credentialsSealed', owner: 'platform channel' },
  { entity: PlatformChannelRow, column: 'webhookSecretSealed', owner: 'platform channel' },
];

export interface ResealReport {
  /** Values sealed under another key, now under the active one. */
  rewrapped: number;
  /**
   * Sealed values no configured key opens (left as they are: proofs of those integrations fail until rotated, those
   * platform channels must be connected again).
   */
  unreadable: { owner: string; id: string; error: string }[];
}

interface SealedRow {
  id: string;
  orgId: string;
  sealed: string;
}

async function* sealedRows(
  dataSource: DataSource,
  entity: EntityTarget<ObjectLiteral>,
  column: string,
): AsyncGenerator<SealedRow> {
  const repository = dataSource.getRepository(entity);
  let after = '';
  for (;;) {
    const rows = await repository.find({
      select: { id: true, orgId: true, [column]: true },
      where: { id: MoreThan(after), [column]: Not('') },
      order: { id: 'ASC' },
      take: BATCH,
    });
    for (const row of rows) yield { id: row.id as string, orgId: row.orgId as string, sealed: row[column] as string };
    const last = rows[rows.length - 1];
    if (!last || rows.length < BATCH) return;
    after = last.id as string;
  }
}

/**
 * Re-seals under the active key every value sealed under another one, so an old CHANNELS_SECRETS_KEYS key can be
 * dropped after a key rotation (decision 0014's procedure). Idempotent and safe on several replicas at once: a row is
 * updated only if it still holds the value that was read (a rotation or a reconnect in between wins). Runs at
 * start-up and from `main.js secrets reseal`.
 */
export async function resealSecrets(dataSource: DataSource, keyring: SecretKeyring): Promise<ResealReport> {
  const report: ResealReport = { rewrapped: 0, unreadable: [] };
  for (const { entity, column, owner: ownerName } of SEALED_COLUMNS) {
    const repository = dataSource.getRepository(entity);
    for await (const row of sealedRows(dataSource, entity, column)) {
      if (!keyring.isStale(row.sealed)) continue;
      const owner = { orgId: row.orgId, id: row.id };
      let plaintext: string;
      try {
        plaintext = keyring.open(row.sealed, owner);
      } catch (error) {
        report.unreadable.push({ owner: ownerName, id: row.id, error: (error as Error).message });
        continue;
      }
      const result = await repository.update(
        { id: row.id, [column]: row.sealed },
        { [column]: keyring.seal(plaintext, owner) },
      );
      report.rewrapped += result.affected ?? 0;
    }
  }
  return report;
}

/** How many sealed values each key id seals (`malformed`: not a sealed value): `secrets status`. */
export async function sealedSecretsByKey(dataSource: DataSource): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { entity, column } of SEALED_COLUMNS) {
    for await (const row of sealedRows(dataSource, entity, column)) {
      const id = keyIdOf(row.sealed) ?? 'malformed';
      counts[id] = (counts[id] ?? 0) + 1;
    }
  }
  return counts;
}
