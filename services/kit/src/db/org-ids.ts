import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { InvalidArgument } from '../errors';
import { isId } from '../ids';
import { requireOrg, requireSystem, type Principal } from '../principal';

/** Most ids one "which of these are ours" call may ask about (a flow has at most 50 steps). */
export const MAX_FIND_IDS = 100;

/**
 * The ids among `ids` that name rows of the principal's org (SYSTEM callers: another service checking the references
 * it is about to store). Another org's id and a malformed one are simply not found, so the caller answers both
 * exactly like an unknown id.
 */
export async function idsOfOrg<T extends ObjectLiteral & { id: string; orgId: string }>(
  principal: Principal,
  manager: EntityManager,
  target: EntityTarget<T>,
  ids: string[],
  field: string,
  /** A further condition on `row` the ids must meet, without parameters (`row.deletedAt IS NULL`). */
  condition?: string,
): Promise<string[]> {
  requireSystem(principal);
  const orgId = requireOrg(principal);
  if (ids.length > MAX_FIND_IDS) throw new InvalidArgument(`at most ${MAX_FIND_IDS} ids per call`, { field });
  const wanted = [...new Set(ids.filter(isId))];
  if (!wanted.length) return [];
  const rows = await manager
    .createQueryBuilder(target, 'row')
    .select('row.id', 'id')
    .where('row.orgId = :orgId AND row.id IN (:...wanted)', { orgId, wanted })
    .andWhere(condition ?? '1 = 1')
    .getRawMany<{ id: string }>();
  return rows.map((row) => row.id);
}
