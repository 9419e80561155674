import { OrgRowsErasure, orgRowsPart } from '@svc/kit';
import { LeaseRow } from '../entities';

/**
 * What content deletes of a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221): every row of its
 * help center and news (articles, translations, folders, tags, terms, posts, categories). The scheduler's lease
 * names no org.
 */
export const CONTENT_ORG_ROWS = new OrgRowsErasure({ noOrgData: [LeaseRow] });

export const contentOrgPart = () => orgRowsPart('content', CONTENT_ORG_ROWS);
