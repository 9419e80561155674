import type { DataSource, EntityManager } from 'typeorm';
import {
  Conflict,
  enqueueEvents,
  familyOf,
  isDuplicateKeyError,
  isId,
  newId,
  NotFound,
  now,
  requireOrg,
  requireScope,
  toIso,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import type {
  DeleteTaxonomyTermResponse,
  ListTaxonomyTermsRequest,
  TaxonomyTerm,
  TaxonomyTermPage,
} from '@svc/proto/content/v1/taxonomy';
import { contentEvent } from '../events';
import { offsetPageOf, pageInfoOf } from '../page';
import { TAXONOMY, type TaxonomyKind, type TaxonomyKindSpec, type TaxonomyTermRow } from './kinds';
import { namePrefixRange, termName } from './names';

/**
 * The terms of one kind (help tags, news categories or news tags): names unique in the org compared folded, each
 * change one event in its transaction, a deleted term taken off every article or post (docs/decisions/0200-0204).
 */
export class TaxonomyTerms {
  private readonly spec: TaxonomyKindSpec;

  constructor(
    kind: TaxonomyKind,
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
  ) {
    this.spec = TAXONOMY[kind];
  }

  /** Ordered by name key then id, so pages never skip or repeat while nothing changes. */
  async list(principal: Principal, request: ListTaxonomyTermsRequest): Promise<TaxonomyTermPage> {
    requireScope(principal, ApiScope.CONTENT_READ);
    const orgId = requireOrg(principal);
    const page = offsetPageOf(request.page);
    const range = namePrefixRange(request.query ?? '');
    const query = this.dataSource.manager
      .createQueryBuilder(this.spec.row, 'term')
      .where('term.orgId = :orgId', { orgId });
    if (range) query.andWhere('term.nameKey >= :from AND term.nameKey < :to', range);
    const [rows, total] = await query
      .orderBy('term.nameKey', 'ASC')
      .addOrderBy('term.id', 'ASC')
      .skip(page.offset)
      .take(page.limit)
      .getManyAndCount();
    return { data: await this.views(this.dataSource.manager, orgId, rows), pageInfo: pageInfoOf(page, total) };
  }

  async get(principal: Principal, id: string): Promise<TaxonomyTerm> {
    requireScope(principal, ApiScope.CONTENT_READ);
    const orgId = requireOrg(principal);
    const [view] = await this.views(this.dataSource.manager, orgId, [
      await this.find(this.dataSource.manager, orgId, id),
    ]);
    return view as TaxonomyTerm;
  }

  async create(principal: Principal, input: { name: string }): Promise<TaxonomyTerm> {
    return this.write(principal, 'created', async (manager, orgId, at) => {
      const row = manager.create(this.spec.row, {
        id: newId(at),
        orgId,
        ...termName(input.name),
        createdAt: at,
        updatedAt: at,
      });
      await this.refuseTakenName(manager, orgId, row.nameKey);
      await manager.insert(this.spec.row, row);
      return { row, changed: true };
    });
  }

  /** Renaming to the same name changes nothing (no event); another case of it is a rename. */
  async update(principal: Principal, input: { id: string; name: string }): Promise<TaxonomyTerm> {
    return this.write(principal, 'updated', async (manager, orgId, at) => {
      const row = await this.find(manager, orgId, input.id);
      const named = termName(input.name);
      if (named.name === row.name) return { row, changed: false };
      if (named.nameKey !== row.nameKey) await this.refuseTakenName(manager, orgId, named.nameKey);
      Object.assign(row, named, { updatedAt: at });
      await manager.update(this.spec.row, { id: row.id }, { ...named, updatedAt: at });
      return { row, changed: true };
    });
  }

  async delete(principal: Principal, id: string): Promise<DeleteTaxonomyTermResponse> {
    requireScope(principal, ApiScope.CONTENT_MANAGE);
    const orgId = requireOrg(principal);
    const linksRemoved = await this.dataSource.transaction(async (manager) => {
      // Locked first: a writer linking the term at the same time holds it share-locked (existingTermIds), so one of
      // the two waits for the other instead of both locking links and term in opposite orders.
      const row = await this.find(manager, orgId, id, true);
      const removed = await manager.delete(this.spec.link.row, { orgId, [this.spec.link.termColumn]: row.id });
      await manager.delete(this.spec.row, { id: row.id });
      await enqueueEvents(manager, [this.event('deleted', orgId, row.id)]);
      return removed.affected ?? 0;
    });
    this.relay().nudge();
    return { id, linksRemoved };
  }

  /** The term of the org, or NOT_FOUND (the same for a malformed id, another org's, or a deleted one). */
  private async find(manager: EntityManager, orgId: string, id: string, forUpdate = false): Promise<TaxonomyTermRow> {
    const lock =
      forUpdate && familyOf(manager.connection) === 'mysql' ? { mode: 'pessimistic_write' as const } : undefined;
    const row = isId(id)
      ? await manager.findOne(this.spec.row, { where: { id, orgId }, ...(lock ? { lock } : {}) })
      : null;
    if (!row) throw new NotFound(`${this.spec.label} not found`, { field: 'id' });
    return row;
  }

  /** The common case answered before the insert; two writers at once are refused by the unique index (`write`). */
  private async refuseTakenName(manager: EntityManager, orgId: string, nameKey: string): Promise<void> {
    if (await manager.existsBy(this.spec.row, { orgId, nameKey })) throw this.nameTaken();
  }

  private nameTaken(): Conflict {
    return new Conflict(`a ${this.spec.label} with this name exists`, { field: 'name' });
  }

  private event(verb: 'created' | 'updated' | 'deleted', orgId: string, id: string) {
    return contentEvent({ object: this.spec.kind, verb, orgId, id });
  }

  /** Runs a create or update with its event (none when nothing changed), mapping a duplicate name to CONFLICT. */
  private async write(
    principal: Principal,
    verb: 'created' | 'updated',
    apply: (manager: EntityManager, orgId: string, at: Date) => Promise<{ row: TaxonomyTermRow; changed: boolean }>,
  ): Promise<TaxonomyTerm> {
    requireScope(principal, ApiScope.CONTENT_MANAGE);
    const orgId = requireOrg(principal);
    try {
      const { view, changed } = await this.dataSource.transaction(async (manager) => {
        const at = now();
        const result = await apply(manager, orgId, at);
        if (result.changed) await enqueueEvents(manager, [this.event(verb, orgId, result.row.id)], at);
        const [view] = await this.views(manager, orgId, [result.row]);
        return { view: view as TaxonomyTerm, changed: result.changed };
      });
      if (changed) this.relay().nudge();
      return view;
    } catch (error) {
      if (isDuplicateKeyError(error)) throw this.nameTaken();
      throw error;
    }
  }

  /** The answers for rows of the org, each with how many articles or posts it is on (one grouped count). */
  private async views(manager: EntityManager, orgId: string, rows: TaxonomyTermRow[]): Promise<TaxonomyTerm[]> {
    const counts = new Map<string, number>();
    if (rows.length) {
      const column = `link.${this.spec.link.termColumn}`;
      const found = await manager
        .createQueryBuilder(this.spec.link.row, 'link')
        .select(column, 'termId')
        .addSelect('COUNT(*)', 'count')
        .where(`link.orgId = :orgId AND ${column} IN (:...ids)`, { orgId, ids: rows.map((row) => row.id) })
        .groupBy(column)
        .getRawMany<{ termId: string; count: number | string }>();
      for (const { termId, count } of found) counts.set(termId, Number(count));
    }
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      createdAt: toIso(row.createdAt),
      updatedAt: toIso(row.updatedAt),
      itemCount: counts.get(row.id) ?? 0,
    }));
  }
}
