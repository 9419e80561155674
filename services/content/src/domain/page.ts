// The offset pages of every content list (spec 2.2, docs/decisions/0181): the kit's, shared with partner's lists.
export { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, offsetPageOf, pageInfoOf, type OffsetPage } from '@svc/kit';
