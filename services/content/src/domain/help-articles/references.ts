import type { EntityManager } from 'typeorm';
import { In } from 'typeorm';
import { InvalidArgument, NotFound, isId } from '@svc/kit';
import { HelpFolderRow, HelpTagRow } from '../../entities';
import { MAX_TAGS } from './rules';

/** A folder id of the org (same database: read directly), or NOT_FOUND naming the field (also for another org's). */
export async function checkFolder(
  manager: EntityManager,
  orgId: string,
  id: string,
  field = 'folderId',
): Promise<string> {
  if (!isId(id)) throw new InvalidArgument(`${field} must be a 24-character hex id`, { field });
  if (!(await manager.existsBy(HelpFolderRow, { id, orgId })))
    throw new NotFound(`${field} names no help folder of this org`, { field });
  return id;
}

/** Tag ids of the org, distinct, in the order given; NOT_FOUND naming the field when one is not the org's. */
export async function checkTags(
  manager: EntityManager,
  orgId: string,
  ids: string[],
  field = 'tagIds',
): Promise<string[]> {
  const distinct = [...new Set(ids)];
  if (distinct.length > MAX_TAGS) throw new InvalidArgument(`${field} holds more than ${MAX_TAGS} tags`, { field });
  if (!distinct.every(isId)) throw new InvalidArgument(`${field} must hold 24-character hex ids`, { field });
  if (!distinct.length) return distinct;
  const found = await manager.countBy(HelpTagRow, { orgId, id: In(distinct) });
  if (found !== distinct.length) throw new NotFound(`${field} names a help tag that is not this org's`, { field });
  return distinct;
}
