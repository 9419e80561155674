import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { DataSource, EntityMetadata, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { OutboxEvent } from '../bus/outbox';
import { openDataSource, type DataSourceSpec } from '../db/data-source';
import { dropTestDatabase, testDbUrl } from '../testing';
import type { EventBus } from '../bus/bus';
import { newId } from '../ids';
import { ORG_ERASE_CONFIRMED, ORG_ERASURE_TOPIC, type ErasureKindCount } from './contract';
import { runOrgErasure, type OrgErasurePart } from './org-erasure';
import { orgEraseConfirmedEvent, orgEraseRequestedEvent, type OrgErasure } from './org-events';
import type { OrgRowsErasure } from './org-rows';
import { documentedOrgErasureKinds } from './participant-testing';
import { ErasureConfirmations, publishNow } from './testing';

/** A new erasure of org `orgId` (tests of a participant's org part). */
export function testOrgErasure(orgId: string): OrgErasure {
  return { erasureId: newId(), orgId };
}

/** Publishes `org.erase_requested`, as identity would (tests of a participant's consumer). */
export function publishOrgEraseRequest(bus: EventBus, topicPrefix: string, erasure: OrgErasure): Promise<void> {
  return publishNow(bus, topicPrefix, orgEraseRequestedEvent(erasure));
}

/** Publishes `org.erase_confirmed`, as participant `service` would (tests of identity's receipt). */
export function publishOrgEraseConfirmation(
  bus: EventBus,
  topicPrefix: string,
  erasure: OrgErasure,
  service: string,
  counts: readonly ErasureKindCount[],
): Promise<void> {
  return publishNow(bus, topicPrefix, orgEraseConfirmedEvent(erasure, service, counts));
}

/** Collects every `org.erase_confirmed` on the bus (start it, then `waitFor(erasureId, service)`). */
export function orgErasureConfirmations(): ErasureConfirmations {
  return new ErasureConfirmations({ topic: ORG_ERASURE_TOPIC, type: ORG_ERASE_CONFIRMED });
}

/**
 * Fails when `dataSource` has a table `rows` neither erases nor declares (a child, no org data, kept): each
 * participant's test calls it, so a table added later cannot be forgotten by the org erasure.
 */
export function checkOrgRowsCoverage(dataSource: DataSource, rows: OrgRowsErasure): void {
  const uncovered = rows.uncovered(dataSource);
  if (uncovered.length) {
    throw new Error(
      `org erasure does not cover ${uncovered.join(', ')}: give each an orgId, or declare it in the part's OrgRowsSpec`,
    );
  }
}

/** How many rows of `orgId` each table with an `org_id` column holds (tables without any left out). */
export async function orgRowCounts(dataSource: DataSource, orgId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const metadata of dataSource.entityMetadatas) {
    const column = metadata.findColumnWithPropertyName('orgId');
    if (!column) continue;
    const count = await dataSource
      .createQueryBuilder(metadata.target, 'row')
      .where(`row.${column.propertyName} = :orgId`, { orgId })
      .getCount();
    if (count) counts[metadata.tableName] = count;
  }
  return counts;
}

/**
 * The contract every `OrgErasurePart` keeps: erasing again confirms the same kinds with zeros (idempotent). Answers
 * the counts of the first erasure; throws naming the broken promise.
 */
export async function checkOrgErasurePart(
  dataSource: DataSource,
  part: OrgErasurePart,
  erasure: OrgErasure,
): Promise<ErasureKindCount[]> {
  const first = await runOrgErasure(dataSource, part, erasure);
  const zeros = first.counts.map(({ kind }) => ({ kind, count: 0 }));
  const again = await runOrgErasure(dataSource, part, erasure);
  if (!isDeepStrictEqual(again.counts, zeros)) {
    throw new Error(`${part.service}: erasing the org again erased ${JSON.stringify(again.counts)}`);
  }
  return first.counts;
}

/** A value of `column`'s type for a synthetic row: unique where it can be, valid for both database families. */
function sampleValue(column: ColumnMetadata): unknown {
  const type = typeof column.type === 'string' ? column.type.toLowerCase() : column.type.name.toLowerCase();
  if (column.enum?.length) return column.enum[0];
  if (['datetime', 'timestamp', 'date'].includes(type)) return new Date();
  if (['int', 'integer', 'bigint', 'smallint', 'tinyint', 'double', 'float', 'decimal', 'number'].includes(type))
    return 1;
  if (['boolean', 'bool'].includes(type)) return false;
  if (type === 'simple-json' || type === 'json') return {};
  if (['text', 'mediumtext', 'longtext'].includes(type)) return '{}';
  if (['blob', 'longblob', 'binary', 'varbinary'].includes(type)) return Buffer.from('x');
  const length = Number(column.length) || 24;
  return length >= 24 ? newId() : randomBytes(8).toString('hex').slice(0, Math.min(length, 16));
}

/**
 * Inserts `perTable` synthetic rows of `orgId` into every table `rows` erases (org columns set to the org, children
 * pointing at the org's parent rows, every other column a sample of its type): a participant's test fills two orgs
 * and checks its part deletes one of them entirely. Answers how many rows each table got.
 */
export async function fillOrgRows(
  dataSource: DataSource,
  orgId: string,
  rows: OrgRowsErasure,
  perTable = 2,
): Promise<Record<string, number>> {
  const kept = new Set((rows.spec.keep ?? []).map((target) => dataSource.getMetadata(target).tableName));
  const orgColumns = (rows.spec.orgColumns ?? []).map((extra) => ({
    table: dataSource.getMetadata(extra.target).tableName,
    column: extra.column,
  }));
  const keys = new Map<string, ObjectLiteral[]>();
  const insert = async (metadata: EntityMetadata, parentOf?: (index: number) => [string, unknown]) => {
    const inserted: ObjectLiteral[] = [];
    for (let index = 0; index < perTable; index++) {
      const row = sampleRow(metadata, orgId);
      for (const extra of orgColumns) if (extra.table === metadata.tableName) row[extra.column] = orgId;
      const parent = parentOf?.(index);
      if (parent) row[parent[0]] = parent[1];
      await dataSource.createQueryBuilder().insert().into(metadata.target).values(row).execute();
      inserted.push(row);
    }
    keys.set(metadata.tableName, inserted);
  };
  // A child with its own orgId too is filled once, with its parent (below).
  const children = new Set((rows.spec.children ?? []).map((child) => dataSource.getMetadata(child.target).tableName));
  for (const metadata of dataSource.entityMetadatas) {
    const { tableName } = metadata;
    if (metadata.findColumnWithPropertyName('orgId') && !kept.has(tableName) && !children.has(tableName))
      await insert(metadata);
  }
  let pending = [...(rows.spec.children ?? [])];
  while (pending.length) {
    const ready = pending.filter((child) => keys.has(dataSource.getMetadata(child.parent).tableName));
    if (!ready.length) throw new Error('fillOrgRows: a child whose parent has no rows');
    for (const child of ready) {
      const parent = dataSource.getMetadata(child.parent);
      const parentRows = keys.get(parent.tableName) ?? [];
      const key = child.parentColumn ?? parent.primaryColumns[0]?.propertyName ?? '';
      await insert(dataSource.getMetadata(child.target), (index) => [
        child.column,
        parentRows[index % parentRows.length]?.[key],
      ]);
    }
    pending = pending.filter((child) => !ready.includes(child));
  }
  return Object.fromEntries([...keys].map(([table, inserted]) => [table, inserted.length]));
}

/** How many rows each table of `dataSource` holds (every table, zeros included). */
async function tableCounts(dataSource: DataSource): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const metadata of dataSource.entityMetadatas) {
    counts[metadata.tableName] = await dataSource.createQueryBuilder(metadata.target, 'row').getCount();
  }
  return counts;
}

/**
 * A participant's org part on its own data source (each service's test): the coverage check passes, two orgs are
 * filled (`fillOrgRows`), erasing one deletes every row `rows` covers and nothing of the other org, kept tables keep
 * their rows, and erasing again confirms zeros. Answers the counts of the erasure; throws naming what broke.
 */
export async function checkOrgRowsPart(
  dataSource: DataSource,
  rows: OrgRowsErasure,
  part: OrgErasurePart,
): Promise<ErasureKindCount[]> {
  checkOrgRowsCoverage(dataSource, rows);
  const orgId = newId();
  const otherOrg = newId();
  const before = await tableCounts(dataSource);
  const filled = await fillOrgRows(dataSource, orgId, rows);
  const filledOther = await fillOrgRows(dataSource, otherOrg, rows);
  const kept = rows.spec.keep ?? [];
  for (const target of kept) {
    const metadata = dataSource.getMetadata(target);
    await dataSource.createQueryBuilder().insert().into(target).values(sampleRow(metadata, orgId)).execute();
  }
  const counts = await checkOrgErasurePart(dataSource, part, testOrgErasure(orgId));
  const after = await tableCounts(dataSource);
  const expected = { ...before };
  for (const [table, n] of Object.entries(filledOther)) expected[table] = (expected[table] ?? 0) + n;
  for (const target of kept) {
    const table = dataSource.getMetadata(target).tableName;
    expected[table] = (expected[table] ?? 0) + 1;
  }
  const outbox = dataSource.getMetadata(OutboxEvent).tableName;
  delete expected[outbox];
  delete after[outbox];
  if (!isDeepStrictEqual(after, expected)) {
    throw new Error(
      `${part.service}: after erasing an org the tables hold ${JSON.stringify(after)}, expected ${JSON.stringify(expected)} (filled ${JSON.stringify(filled)})`,
    );
  }
  const total = counts.reduce((sum, { count }) => sum + count, 0);
  const inserted = Object.values(filled).reduce((sum, n) => sum + n, 0);
  if (total !== inserted) {
    throw new Error(`${part.service}: confirmed ${total} rows erased (${JSON.stringify(counts)}), ${inserted} filled`);
  }
  return counts;
}

function sampleRow(metadata: EntityMetadata, orgId: string): ObjectLiteral {
  const row: ObjectLiteral = {};
  for (const column of metadata.columns) row[column.propertyName] = sampleValue(column);
  if (metadata.findColumnWithPropertyName('orgId')) row.orgId = orgId;
  return row;
}

/**
 * A participant's whole org part test on a database of its own (in-memory SQLite, or MariaDB under `test:infra`)
 * migrated like production: `checkOrgRowsPart`, every kind the test filled counted, and the kinds exactly those
 * docs/erasure.md's org table lists for the service. `part` is built on that database. Answers the counts.
 */
export async function checkServiceOrgPart(
  data: Omit<DataSourceSpec, 'url'>,
  rows: OrgRowsErasure,
  part: (dataSource: DataSource) => OrgErasurePart,
): Promise<ErasureKindCount[]> {
  const url = testDbUrl('org_erasure');
  const dataSource = await openDataSource({ ...data, url }, { migrate: true });
  try {
    const erasing = part(dataSource);
    const counts = await checkOrgRowsPart(dataSource, rows, erasing);
    const kinds = counts.map(({ kind }) => kind);
    const documented = documentedOrgErasureKinds(erasing.service);
    if (!isDeepStrictEqual(kinds, documented)) {
      throw new Error(`${erasing.service}: counts ${kinds.join(', ')}; docs/erasure.md lists ${documented.join(', ')}`);
    }
    const empty = counts.filter(({ count }) => count === 0).map(({ kind }) => kind);
    if (empty.length) throw new Error(`${erasing.service}: nothing filled or erased in ${empty.join(', ')}`);
    return counts;
  } finally {
    await dataSource.destroy();
    await dropTestDatabase(url);
  }
}
