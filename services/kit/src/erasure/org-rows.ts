import type { DataSource, EntityManager, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import { OutboxEvent } from '../bus/outbox';
import type { ErasedPart, ErasureKindCount, OrgErasureParticipantName } from './contract';
import { kindCounts } from './events';
import type { OrgErasurePart } from './org-erasure';
import type { OrgErasure } from './org-events';

type Target = EntityTarget<ObjectLiteral>;

/**
 * Rows belonging to a parent's: deleted by the keys of the parent's rows of the org. Required for an entity without
 * an `orgId` column; allowed for one with it, whose rows of the org are then those of either condition.
 */
export interface OrgChildRows {
  target: Target;
  /** The parent entity: one with `orgId`, or another declared child. */
  parent: Target;
  /** The child's property holding the parent's key. */
  column: string;
  /** The parent's property it refers to; default the parent's one primary column. */
  parentColumn?: string;
}

/** Another property naming the org a row belongs to (partner's `clientOrgId` next to the provider's `orgId`). */
export interface OrgColumn {
  target: Target;
  column: string;
}

/**
 * How a service's rows of an org are found (docs/erasure.md "Erasing an org"). Every entity with an `orgId` property
 * is deleted by it, unless kept; every other entity must be declared a child or as holding no org data, so a new
 * table cannot be forgotten (`uncovered`, checked by each service's test and refused at erasure time).
 */
export interface OrgRowsSpec {
  children?: readonly OrgChildRows[];
  orgColumns?: readonly OrgColumn[];
  /** Entities holding no org's data (leases, processed-event marks…); the kit's outbox is always one. */
  noOrgData?: readonly Target[];
  /** Entities of the org that SURVIVE its deprovisioning (usage history): the reason goes in a comment next to it. */
  keep?: readonly Target[];
  /** Kinds counting several tables together; a table in no group counts as its own table name. */
  groups?: Readonly<Record<string, readonly Target[]>>;
}

/** One DELETE of the plan: `where` is SQL on the table's own columns with the parameter `:orgId`. */
interface OrgRowsStep {
  metadata: EntityMetadata;
  where: string;
  kind: string;
}

const ORG_PROPERTY = 'orgId';

const orgColumnOf = (metadata: EntityMetadata) => metadata.findColumnWithPropertyName(ORG_PROPERTY);

/**
 * A participant's part of an org erasure as plain deletes over its data source's entity metadata: every row of the
 * org in every table with an `orgId` column, and the declared children by their parents' keys, children before
 * the tables they reference (foreign keys), all in the chassis' one transaction. Deleting again finds nothing.
 */
export class OrgRowsErasure {
  constructor(readonly spec: OrgRowsSpec = {}) {}

  /** The tables of `dataSource` neither deleted, kept nor declared as holding no org data (should be none). */
  uncovered(dataSource: DataSource): string[] {
    const declared = new Set(
      [
        ...(this.spec.noOrgData ?? []),
        ...(this.spec.keep ?? []),
        ...(this.spec.children ?? []).map((child) => child.target),
        OutboxEvent,
      ].map((target) => dataSource.getMetadata(target).tableName),
    );
    return dataSource.entityMetadatas
      .filter((metadata) => !orgColumnOf(metadata) && !declared.has(metadata.tableName))
      .map((metadata) => metadata.tableName)
      .sort();
  }

  /** Every kind this part counts, sorted (listed in each confirmation, zeros included). */
  kinds(dataSource: DataSource): string[] {
    return [...new Set(this.plan(dataSource).map((step) => step.kind))].sort();
  }

  /** Deletes the org's rows in `manager`'s transaction; answers how many of each kind. */
  async erase(manager: EntityManager, orgId: string): Promise<ErasureKindCount[]> {
    const steps = this.plan(manager.connection);
    const found: Record<string, number> = {};
    for (const step of steps) {
      const result = await manager
        .createQueryBuilder()
        .delete()
        .from(step.metadata.target)
        .where(step.where, { orgId })
        .execute();
      found[step.kind] = (found[step.kind] ?? 0) + (result.affected ?? 0);
    }
    return kindCounts([...new Set(steps.map((step) => step.kind))].sort(), found);
  }

  /** The deletes, in an order foreign keys accept: a table's referencing tables before it. */
  private plan(dataSource: DataSource): OrgRowsStep[] {
    const uncovered = this.uncovered(dataSource);
    if (uncovered.length) {
      throw new Error(`org erasure: tables neither erased nor declared: ${uncovered.join(', ')} (OrgRowsSpec)`);
    }
    const escape = (name: string) => dataSource.driver.escape(name);
    const kept = new Set((this.spec.keep ?? []).map((target) => dataSource.getMetadata(target).tableName));
    const kindOf = new Map<string, string>();
    for (const [kind, targets] of Object.entries(this.spec.groups ?? {})) {
      for (const target of targets) kindOf.set(dataSource.getMetadata(target).tableName, kind);
    }
    const steps = new Map<string, OrgRowsStep>();
    /** Adds `condition` to the table's step (OR: a row of the org is one matching any of them). */
    const add = (metadata: EntityMetadata, condition: string) => {
      const kind = kindOf.get(metadata.tableName) ?? metadata.tableName;
      const known = steps.get(metadata.tableName);
      const where = known ? `(${known.where}) OR (${condition})` : condition;
      steps.set(metadata.tableName, { metadata, where, kind });
    };
    const columnOf = (metadata: EntityMetadata, property: string) => {
      const column = metadata.findColumnWithPropertyName(property);
      if (!column) throw new Error(`org erasure: ${metadata.tableName} has no property ${property}`);
      return escape(column.databaseName);
    };
    for (const metadata of dataSource.entityMetadatas) {
      if (orgColumnOf(metadata) && !kept.has(metadata.tableName))
        add(metadata, `${columnOf(metadata, ORG_PROPERTY)} = :orgId`);
    }
    for (const extra of this.spec.orgColumns ?? []) {
      const metadata = dataSource.getMetadata(extra.target);
      add(metadata, `${columnOf(metadata, extra.column)} = :orgId`);
    }
    // A child's parent may itself be a child: each child waits for its parent's complete condition.
    const childrenOf = new Map<string, Set<string>>();
    const children = (this.spec.children ?? []).map((child) => ({
      ...child,
      table: dataSource.getMetadata(child.target).tableName,
      parentTable: dataSource.getMetadata(child.parent).tableName,
    }));
    let pending = children;
    while (pending.length) {
      const resolved = new Set(pending.map((child) => child.table));
      const ready = pending.filter((child) => !resolved.has(child.parentTable));
      if (!ready.length) throw new Error(`org erasure: children in a cycle: ${pending.map((c) => c.table).join(', ')}`);
      for (const child of ready) {
        const parent = steps.get(child.parentTable);
        if (!parent) throw new Error(`org erasure: ${child.table}'s parent ${child.parentTable} is not erased`);
        const key = columnOf(
          parent.metadata,
          child.parentColumn ?? parent.metadata.primaryColumns[0]?.propertyName ?? '',
        );
        const metadata = dataSource.getMetadata(child.target);
        add(
          metadata,
          `${columnOf(metadata, child.column)} IN (SELECT ${key} FROM ${escape(child.parentTable)} WHERE ${parent.where})`,
        );
        childrenOf.set(child.parentTable, (childrenOf.get(child.parentTable) ?? new Set()).add(child.table));
      }
      pending = pending.filter((child) => !ready.includes(child));
    }
    return orderedByReferences([...steps.values()], childrenOf);
  }
}

/**
 * Steps ordered so that a table goes only after every table referencing it (foreign keys, and children through
 * their parents' keys): Kahn's algorithm; a cycle between tables is refused (none exists; a self-reference is one
 * table's single statement).
 */
function orderedByReferences(steps: OrgRowsStep[], childrenOf: Map<string, Set<string>>): OrgRowsStep[] {
  const tables = new Set(steps.map((s) => s.metadata.tableName));
  const referencedBy = new Map<string, Set<string>>(steps.map((s) => [s.metadata.tableName, new Set<string>()]));
  for (const s of steps) {
    for (const foreignKey of s.metadata.foreignKeys) {
      const parent = foreignKey.referencedEntityMetadata.tableName;
      if (parent !== s.metadata.tableName && tables.has(parent)) referencedBy.get(parent)?.add(s.metadata.tableName);
    }
  }
  for (const [parent, children] of childrenOf) for (const child of children) referencedBy.get(parent)?.add(child);
  const ordered: OrgRowsStep[] = [];
  let left = steps;
  while (left.length) {
    const done = new Set(ordered.map((s) => s.metadata.tableName));
    const ready = left.filter((s) =>
      [...(referencedBy.get(s.metadata.tableName) ?? [])].every((child) => done.has(child)),
    );
    if (!ready.length)
      throw new Error(`org erasure: tables reference each other: ${left.map((s) => s.metadata.tableName)}`);
    ordered.push(...ready);
    left = left.filter((s) => !ready.includes(s));
  }
  return ordered;
}

/** Work of a part outside `OrgRowsErasure`: before its deletes, in the transaction, and after the commit. */
export interface OrgRowsHooks {
  /** In the transaction, before the rows go (e.g. recording blob keys); may answer work for after the commit. */
  beforeDelete?: (manager: EntityManager, erasure: OrgErasure) => Promise<(() => Promise<void>) | undefined>;
  /** After the commit (caches, open connections): idempotent, like `ErasedPart.afterCommit`. */
  afterCommit?: (erasure: OrgErasure) => Promise<void>;
}

/** A participant's org part made of `rows` (and `hooks` for what is not rows). */
export function orgRowsPart(
  service: OrgErasureParticipantName,
  rows: OrgRowsErasure,
  hooks: OrgRowsHooks = {},
): OrgErasurePart {
  return {
    service,
    erase: async (manager, erasure): Promise<ErasedPart> => {
      const before = await hooks.beforeDelete?.(manager, erasure);
      const counts = await rows.erase(manager, erasure.orgId);
      const { afterCommit } = hooks;
      if (!before && !afterCommit) return { counts };
      return {
        counts,
        afterCommit: async () => {
          await before?.();
          await afterCommit?.(erasure);
        },
      };
    },
  };
}
