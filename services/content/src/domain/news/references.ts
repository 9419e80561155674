import { In, type EntityManager } from 'typeorm';
import { InvalidArgument, NotFound, isId } from '@svc/kit';
import { NewsCategoryRow, NewsTagRow } from '../../entities';

/** Most categories, and most tags, one post may have. */
export const MAX_POST_TERMS = 20;

const TERMS = {
  categoryIds: { row: NewsCategoryRow, what: 'news category' },
  tagIds: { row: NewsTagRow, what: 'news tag' },
  categoryId: { row: NewsCategoryRow, what: 'news category' },
  tagId: { row: NewsTagRow, what: 'news tag' },
} as const;

/**
 * The distinct ids, each a news category (or tag) of the org, read from the taxonomy's own tables (same database);
 * otherwise NOT_FOUND naming `field`, the same for another org's id, an unknown one and a malformed one.
 */
export async function orgTermIds(
  manager: EntityManager,
  orgId: string,
  ids: readonly string[],
  field: keyof typeof TERMS,
): Promise<string[]> {
  const { row, what } = TERMS[field];
  const wanted = [...new Set(ids)];
  if (wanted.length > MAX_POST_TERMS)
    throw new InvalidArgument(`a news post has at most ${MAX_POST_TERMS} ${field}`, { field });
  if (!wanted.length) return [];
  const found =
    wanted.every(isId) && (await manager.countBy(row, { orgId, id: In(wanted) })) === wanted.length ? wanted : [];
  if (found.length !== wanted.length) throw new NotFound(`${field} names no ${what} of this org`, { field });
  return wanted;
}
