import { OrgRowsErasure, orgRowsPart, type OrgRowsHooks } from '@svc/kit';
import { ConnectionRow, IdempotencyKeyRow } from '../entities';

/**
 * What webhook-ingress deletes of a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221): its inbound
 * connections (sealed signing secrets, shared secret hashes), their history rows and idempotency records. A request
 * arriving afterwards finds no connection; every replica drops its cached lookups of the org on the request
 * (cache-invalidation.ts).
 */
export const INGRESS_ORG_ROWS = new OrgRowsErasure({
  children: [{ target: IdempotencyKeyRow, parent: ConnectionRow, column: 'connectionId' }],
});

export const ingressOrgPart = (hooks: OrgRowsHooks) => orgRowsPart('webhook-ingress', INGRESS_ORG_ROWS, hooks);
