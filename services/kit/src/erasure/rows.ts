import type { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { ContactErasure, ErasedPart, ErasureKindCount, ErasureParticipantName, ErasurePart } from './contract';

/**
 * One set of a contact's rows in one table. `where` is SQL on the table's own column names (unqualified), with the
 * parameters `:orgId` and `:contactId`; it must match nothing once the rows are erased (deleted, or anonymised so
 * they no longer name the contact), so erasing again finds nothing.
 */
export interface ContactRows<T extends ObjectLiteral = ObjectLiteral> {
  /** The kind the rows are counted as; undefined: erased with the others, not counted on their own. */
  kind?: string;
  target: EntityTarget<T>;
  where: string;
  /** The columns an anonymised row keeps (the rest of the row stays); absent: the rows are deleted. */
  anonymise?: QueryDeepPartialEntity<T>;
}

const parametersOf = (orgId: string, contactId: string) => ({ orgId, contactId });

/**
 * A participant's part as a list of row sets (docs/erasure.md): `preview` counts exactly the rows `erase` removes or
 * anonymises, through the same conditions, so the two cannot drift. Sets are erased in order: one whose `where`
 * reads another table's rows of the contact (a child through its parent) comes before that table's own set.
 */
export class ContactRowsErasure<T extends ObjectLiteral = ObjectLiteral> {
  /** The kinds counted, in the order of the sets. */
  readonly kinds: string[];

  constructor(private readonly sets: readonly ContactRows<T>[]) {
    this.kinds = [...new Set(sets.flatMap((set) => (set.kind ? [set.kind] : [])))];
  }

  /** How many rows of each kind name the contact now (every kind listed, zeros included). */
  async count(manager: EntityManager, orgId: string, contactId: string): Promise<ErasureKindCount[]> {
    const counts = new Map(this.kinds.map((kind) => [kind, 0]));
    for (const set of this.sets) {
      if (!set.kind) continue;
      const found = await manager
        .createQueryBuilder(set.target, 'erased')
        .where(set.where, parametersOf(orgId, contactId))
        .getCount();
      counts.set(set.kind, (counts.get(set.kind) ?? 0) + found);
    }
    return [...counts].map(([kind, count]) => ({ kind, count }));
  }

  /** Deletes or anonymises every set in `manager`'s transaction; answers what it changed, by kind. */
  async erase(manager: EntityManager, orgId: string, contactId: string): Promise<ErasureKindCount[]> {
    const counts = new Map(this.kinds.map((kind) => [kind, 0]));
    for (const set of this.sets) {
      const statement = set.anonymise
        ? manager.createQueryBuilder().update(set.target).set(set.anonymise)
        : manager.createQueryBuilder().delete().from(set.target);
      const result = await statement.where(set.where, parametersOf(orgId, contactId)).execute();
      if (set.kind) counts.set(set.kind, (counts.get(set.kind) ?? 0) + (result.affected ?? 0));
    }
    return [...counts].map(([kind, count]) => ({ kind, count }));
  }
}

/**
 * A participant's part made of row sets alone: `preview` reads outside any transaction, `erase` in the chassis'
 * transaction; `afterCommit` (caches, open connections) runs once the erasure committed.
 */
export function contactRowsPart<T extends ObjectLiteral>(
  service: ErasureParticipantName,
  dataSource: DataSource,
  rows: ContactRowsErasure<T>,
  afterCommit?: (erasure: ContactErasure) => Promise<void>,
): ErasurePart {
  return {
    service,
    preview: (orgId, contactId) => rows.count(dataSource.manager, orgId, contactId),
    erase: async (manager, erasure): Promise<ErasedPart> => ({
      counts: await rows.erase(manager, erasure.orgId, erasure.contactId),
      ...(afterCommit ? { afterCommit: () => afterCommit(erasure) } : {}),
    }),
  };
}
