import type { DataSource, ObjectLiteral } from 'typeorm';
import { ContactRowsErasure, contactRowsPart, type ErasurePart } from '@svc/kit';
import { PartnerWebhookDeliveryState_Status as DeliveryStatus } from '@svc/proto/partner/v1/partner_webhooks';
import { PartnerDeliveryAttemptRow, PartnerDeliveryRow } from '../entities';

const OPEN = `status IN ('${DeliveryStatus.PENDING}', '${DeliveryStatus.HELD}')`;
const CLOSED = `status IN ('${DeliveryStatus.DELIVERED}', '${DeliveryStatus.FAILED}')`;
const OF_CONTACT = 'client_org_id = :orgId AND contact_id = :contactId';
const deliveriesOfContact = (condition: string) =>
  `delivery_id IN (SELECT id FROM partner_deliveries WHERE ${OF_CONTACT} AND ${condition})`;

/**
 * What partner keeps about a contact of a client org (docs/erasure.md, docs/decisions/0246): the fan-out deliveries
 * whose payload names it. One not sent yet (PENDING, HELD) is deleted with its attempts, so it is never sent after the
 * erasure; a finished one (DELIVERED, FAILED) stays in the provider's delivery log with its payload emptied and no
 * contact, its attempts' response excerpts (an endpoint may echo the body) cleared. `contact.erased` deliveries name no
 * contact and stay: they tell the provider to erase its copy.
 */
export const PARTNER_CONTACT_ROWS = new ContactRowsErasure<ObjectLiteral>([
  { target: PartnerDeliveryAttemptRow, where: deliveriesOfContact(OPEN) },
  {
    target: PartnerDeliveryAttemptRow,
    where: `${deliveriesOfContact(CLOSED)} AND response_excerpt <> ''`,
    anonymise: { responseExcerpt: '' },
  },
  { kind: 'pending_deliveries', target: PartnerDeliveryRow, where: `${OF_CONTACT} AND ${OPEN}` },
  {
    kind: 'delivery_payloads',
    target: PartnerDeliveryRow,
    where: `${OF_CONTACT} AND ${CLOSED}`,
    anonymise: { payload: '', contactId: null },
  },
]);

export function partnerContactErasure(dataSource: DataSource): ErasurePart {
  return contactRowsPart('partner', dataSource, PARTNER_CONTACT_ROWS);
}
