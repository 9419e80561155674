import type { EntityManager } from 'typeorm';
import { familyOf, InvalidArgument, isId, MAX_FIND_IDS, NotFound } from '@svc/kit';
import { TAXONOMY, type TaxonomyKind } from './kinds';

/**
 * The ids among `ids` that name terms of `kind` in the org, each once. Another org's id and a malformed one are
 * simply not found. Call it inside the transaction that stores the links: on the MySQL family the terms found stay
 * share-locked until it ends, so a term deleted meanwhile waits for it and then removes the new links too.
 */
export async function existingTermIds(
  manager: EntityManager,
  kind: TaxonomyKind,
  orgId: string,
  ids: readonly string[],
): Promise<string[]> {
  const wanted = [...new Set(ids.filter(isId))];
  if (!wanted.length) return [];
  const query = manager
    .createQueryBuilder(TAXONOMY[kind].row, 'term')
    .select('term.id', 'id')
    .where('term.orgId = :orgId AND term.id IN (:...wanted)', { orgId, wanted });
  if (familyOf(manager.connection) === 'mysql') query.setLock('pessimistic_read');
  const rows = await query.getRawMany<{ id: string }>();
  return rows.map((row) => row.id);
}

/**
 * `ids` without repeats, in their order, once every one is checked as a term of `kind` in the org: too many is
 * BAD_USER_INPUT, an unknown (or another org's) id NOT_FOUND, both naming `field` (e.g. `tagIds`).
 */
export async function requireTermIds(
  manager: EntityManager,
  kind: TaxonomyKind,
  orgId: string,
  ids: readonly string[],
  field: string,
): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length > MAX_FIND_IDS) throw new InvalidArgument(`at most ${MAX_FIND_IDS} ids`, { field });
  const found = new Set(await existingTermIds(manager, kind, orgId, unique));
  const missing = unique.find((id) => !found.has(id));
  if (missing !== undefined) throw new NotFound(`${TAXONOMY[kind].label} not found`, { field, id: missing });
  return unique;
}
