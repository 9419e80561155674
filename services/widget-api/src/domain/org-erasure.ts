import { OrgRowsErasure, orgRowsPart, type OrgRowsHooks } from '@svc/kit';

/**
 * What widget-api deletes of a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221): its visitor
 * sessions, so their refresh and session tokens are refused from then on (a session token is honoured only while its
 * row exists); the org's open SSE streams end on every replica (realtime/feed.ts), as for an erased contact (0173).
 */
export const WIDGET_ORG_ROWS = new OrgRowsErasure();

export const widgetOrgPart = (hooks: OrgRowsHooks) => orgRowsPart('widget-api', WIDGET_ORG_ROWS, hooks);
