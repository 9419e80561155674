import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { decodeCursor, encodeCursor, type KeysetPosition } from '../cursor';
import { InvalidArgument } from '../errors';

export interface PageRequest {
  cursor?: string | undefined;
  /** true: the items before the cursor (or the last page when there is no cursor). */
  isBefore?: boolean | undefined;
  limit: number;
}

export interface Page<T> {
  data: T[];
  nextCursor?: string | undefined;
  previousCursor?: string | undefined;
  hasNext: boolean;
  hasPrevious: boolean;
  /** How many items the whole list holds: only with `countAll` and no cursor, else undefined. */
  totalCount?: number | undefined;
}

export interface KeysetOptions {
  /**
   * Count the whole list in the page's own statement (`COUNT(*) OVER ()`) on a page without a cursor: one pass
   * instead of two where each pass is costly (a full-text search reads every matching row).
   */
  countAll?: boolean;
}

const TOTAL_ALIAS = 'keyset_total';

export const MAX_PAGE_SIZE = 100;

/** `field` is the caller's name for the page size (`input.limit`, `pagination.first`), reported in the error. */
export function validateLimit(limit: number, field = 'limit'): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new InvalidArgument(`${field} must be an integer from 1 to ${MAX_PAGE_SIZE}`, { field });
  }
  return limit;
}

/**
 * A requested page size: unset takes `fallback`; a value that is set is never replaced, so 0, a negative number or
 * more than MAX_PAGE_SIZE is BAD_USER_INPUT naming `field`.
 */
export function pageLimit(limit: number | undefined, fallback: number, field: string): number {
  return validateLimit(limit ?? fallback, field);
}

/**
 * Keyset pagination over a list ordered by (timestamp, id), the same for every list in every service.
 *
 * Pages are always returned in the list's order (`ascending` for message threads, `descending` for inbox lists).
 * Forward (`isBefore` false): the items after the cursor, or the first page without one. Backward (`isBefore` true):
 * the items before the cursor, or the last page without one.
 * `nextCursor`/`previousCursor` are the positions of the last/first item, so paging never skips or repeats, also
 * while items are appended. The comparison is spelled `(t > :t OR (t = :t AND id > :id))` because the row-value
 * form is not used by MariaDB's range optimiser. A page without a cursor is an end of the list (the first forward,
 * the last backward): nothing lies beyond it, so it is not probed.
 */
export async function keysetPage<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  columns: { at: string; id: string },
  positionOf: (row: T) => KeysetPosition,
  request: PageRequest,
  order: 'ascending' | 'descending' = 'ascending',
  options: KeysetOptions = {},
): Promise<Page<T>> {
  const limit = validateLimit(request.limit);
  const backward = request.isBefore === true;
  const after: '<' | '>' = order === 'ascending' ? '>' : '<';
  const before: '<' | '>' = after === '>' ? '<' : '>';
  const position = request.cursor ? decodeCursor(request.cursor) : undefined;
  const page = query.clone();
  if (position) applyBound(page, columns, position, backward ? before : after);
  const direction = (order === 'ascending') !== backward ? 'ASC' : 'DESC';
  page
    .orderBy(columns.at, direction)
    .addOrderBy(columns.id, direction)
    .take(limit + 1);
  const counted = options.countAll === true && !position;
  if (counted) page.addSelect('COUNT(*) OVER ()', TOTAL_ALIAS);
  const { entities: rows, raw } = counted
    ? await page.getRawAndEntities()
    : { entities: await page.getMany(), raw: [] };
  const more = rows.length > limit;
  const data = rows.slice(0, limit);
  if (backward) data.reverse();
  const first = data[0];
  const last = data[data.length - 1];
  // Probed from the item at that edge, or, on an empty page, from the cursor itself (inclusive).
  const beyond = (edge: T | undefined, op: '<' | '>') =>
    position ? exists(query, columns, edge ? positionOf(edge) : position, op, !edge) : Promise.resolve(false);
  const hasNext = backward ? await beyond(last, after) : more;
  const hasPrevious = backward ? more : await beyond(first, before);
  return {
    data,
    nextCursor: last ? encodeCursor(positionOf(last)) : request.cursor,
    previousCursor: first ? encodeCursor(positionOf(first)) : request.cursor,
    hasNext,
    hasPrevious,
    totalCount: counted ? Number((raw[0] as Record<string, unknown> | undefined)?.[TOTAL_ALIAS] ?? 0) : undefined,
  };
}

function applyBound<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  columns: { at: string; id: string },
  position: KeysetPosition,
  op: '<' | '>',
  inclusive = false,
): SelectQueryBuilder<T> {
  const idOp = inclusive ? `${op}=` : op;
  return query.andWhere(
    `(${columns.at} ${op} :keysetAt OR (${columns.at} = :keysetAt AND ${columns.id} ${idOp} :keysetId))`,
    { keysetAt: position.at, keysetId: position.id },
  );
}

async function exists<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  columns: { at: string; id: string },
  position: KeysetPosition,
  op: '<' | '>',
  inclusive = false,
): Promise<boolean> {
  const probe = applyBound(query.clone(), columns, position, op, inclusive);
  return (await probe.select(columns.id).limit(1).getRawOne()) !== undefined;
}
