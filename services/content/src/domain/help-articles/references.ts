import type { EntityManager } from 'typeorm';
import { InvalidArgument, NotFound, familyOf, isId } from '@svc/kit';
import { HelpFolderRow } from '../../entities';
import { requireTermIds } from '../taxonomy';
import { MAX_TAGS } from './rules';

/**
 * A folder id of the org (same database: read directly), or NOT_FOUND naming the field (also for another org's). On the
 * MySQL family the folder stays share-locked until the caller's transaction ends, so a concurrent `deleteHelpFolder`
 * (which locks the org's folders) waits and then moves the article filed meanwhile, or runs first and this is NOT_FOUND.
 */
export async function checkFolder(
  manager: EntityManager,
  orgId: string,
  id: string,
  field = 'folderId',
): Promise<string> {
  if (!isId(id)) throw new InvalidArgument(`${field} must be a 24-character hex id`, { field });
  const lock = familyOf(manager.connection) === 'mysql' ? { lock: { mode: 'pessimistic_read' as const } } : {};
  if (!(await manager.findOne(HelpFolderRow, { select: { id: true }, where: { id, orgId }, ...lock })))
    throw new NotFound(`${field} names no help folder of this org`, { field });
  return id;
}

/**
 * Tag ids of the org, distinct, in the order given; NOT_FOUND naming the field when one is not the org's. Checked by
 * the taxonomy (`requireTermIds`), which share-locks them until the caller's transaction ends: a tag deleted meanwhile
 * takes the caller's new links with it.
 */
export async function checkTags(
  manager: EntityManager,
  orgId: string,
  ids: string[],
  field = 'tagIds',
): Promise<string[]> {
  const distinct = [...new Set(ids)];
  if (distinct.length > MAX_TAGS) throw new InvalidArgument(`${field} holds more than ${MAX_TAGS} tags`, { field });
  if (!distinct.every(isId)) throw new InvalidArgument(`${field} must hold 24-character hex ids`, { field });
  return requireTermIds(manager, 'help_tag', orgId, distinct, field);
}
