import { isDeepStrictEqual } from 'node:util';
import type { DataSource } from 'typeorm';
import type { EventBus } from '../bus/bus';
import { newId } from '../ids';
import { ORG_ERASE_CONFIRMED, ORG_ERASURE_TOPIC, type ErasureKindCount } from './contract';
import { runOrgErasure, type OrgErasurePart } from './org-erasure';
import { orgEraseConfirmedEvent, orgEraseRequestedEvent, type OrgErasure } from './org-events';
import type { OrgRowsErasure } from './org-rows';
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
