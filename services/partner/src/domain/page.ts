import { InvalidArgument } from '@svc/kit';
import type { PartnerPageInfo, PartnerPageRequest } from '@svc/proto/partner/v1/partner_webhooks';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

export interface OffsetPage {
  limit: number;
  offset: number;
}

/** The page a partner list asked for (unset limit 20, offset 0), checked: INVALID_ARGUMENT naming `limit`/`offset`. */
export function offsetPageOf(request: PartnerPageRequest | undefined): OffsetPage {
  const limit = request?.limit ?? DEFAULT_PAGE_LIMIT;
  const offset = request?.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)
    throw new InvalidArgument(`limit must be between 1 and ${MAX_PAGE_LIMIT}`, { field: 'limit' });
  if (!Number.isInteger(offset) || offset < 0)
    throw new InvalidArgument('offset must be 0 or more', { field: 'offset' });
  return { limit, offset };
}

/** What a page answer says about where it sits. */
export function pageInfoOf(page: OffsetPage, totalCount: number): PartnerPageInfo {
  return { totalCount, limit: page.limit, offset: page.offset, hasMore: page.offset + page.limit < totalCount };
}
