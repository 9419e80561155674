import { InvalidArgument } from './errors';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/** What an offset-paginated read asks for (spec 2.2: plain `limit` / `offset`, both optional). */
export interface OffsetPageRequest {
  limit?: number | undefined;
  offset?: number | undefined;
}

export interface OffsetPage {
  limit: number;
  offset: number;
}

/** Where a page answer sits in its list. */
export interface OffsetPageInfo {
  totalCount: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

/**
 * The page a read asked for, checked (docs/decisions/0181): unset limit 20, offset 0; a limit outside 1..100 or a
 * negative offset is INVALID_ARGUMENT naming `limit` or `offset`.
 */
export function offsetPageOf(request: OffsetPageRequest | undefined): OffsetPage {
  const limit = request?.limit ?? DEFAULT_PAGE_LIMIT;
  const offset = request?.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)
    throw new InvalidArgument(`limit must be between 1 and ${MAX_PAGE_LIMIT}`, { field: 'limit' });
  if (!Number.isInteger(offset) || offset < 0)
    throw new InvalidArgument('offset must be 0 or more', { field: 'offset' });
  return { limit, offset };
}

/** What a page answer says about where it sits. */
export function pageInfoOf(page: OffsetPage, totalCount: number): OffsetPageInfo {
  return { totalCount, limit: page.limit, offset: page.offset, hasMore: page.offset + page.limit < totalCount };
}
