import { InvalidArgument } from '@svc/kit';
import type { ContentPageInfo, ContentPageRequest } from '@svc/proto/content/v1/content';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

export interface OffsetPage {
  limit: number;
  offset: number;
}

/** The page a read asked for (spec 2.2: plain `limit` / `offset`), checked (docs/decisions/0181). */
export function offsetPageOf(request: ContentPageRequest | undefined): OffsetPage {
  const limit = request?.limit ?? DEFAULT_PAGE_LIMIT;
  const offset = request?.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)
    throw new InvalidArgument(`limit must be between 1 and ${MAX_PAGE_LIMIT}`, { field: 'limit' });
  if (!Number.isInteger(offset) || offset < 0)
    throw new InvalidArgument('offset must be 0 or more', { field: 'offset' });
  return { limit, offset };
}

/** What a page answer says about where it sits. */
export function pageInfoOf(page: OffsetPage, totalCount: number): ContentPageInfo {
  return { totalCount, limit: page.limit, offset: page.offset, hasMore: page.offset + page.limit < totalCount };
}
