import { OrgRowsErasure, orgRowsPart } from '@svc/kit';
import {
  LeaseRow,
  PartnerDeliveryAttemptRow,
  PartnerDeliveryRow,
  UsageContactRow,
  UsageCounterRow,
  UsageEventRow,
} from '../entities';

/**
 * What partner deletes of a deprovisioned client org (docs/erasure.md "Erasing an org", decision 0221): the
 * deliveries of its events to its provider's webhooks (`client_org_id`; their `org_id` is the provider's) with their
 * attempts, so no retry of them is sent, and what the org itself owns under `org_id` (a client org registers no
 * webhooks, so nothing there). Its usage history SURVIVES: the provider is billed and reports on past months of a
 * deprovisioned client (decisions 0221, 0250): its counters and active contacts are kept; the processed event ids name
 * no org.
 */
export const PARTNER_ORG_ROWS = new OrgRowsErasure({
  orgColumns: [{ target: PartnerDeliveryRow, column: 'clientOrgId' }],
  children: [{ target: PartnerDeliveryAttemptRow, parent: PartnerDeliveryRow, column: 'deliveryId' }],
  noOrgData: [LeaseRow, UsageEventRow],
  keep: [UsageCounterRow, UsageContactRow],
});

export const partnerOrgPart = () => orgRowsPart('partner', PARTNER_ORG_ROWS);
