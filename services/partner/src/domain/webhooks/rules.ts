import { randomBytes } from 'node:crypto';
import { InvalidArgument, isId } from '@svc/kit';
import { PARTNER_EVENT_KINDS, isPartnerEventKind, type PartnerEventKind } from '../catalogue';

/**
 * Webhooks one provider org may register (docs/decisions/0232): Standard Webhooks' fan-out wants a handful of
 * endpoints per consumer (each receives every chosen event of every client org), and each one multiplies the
 * deliveries of every event.
 */
export const MAX_WEBHOOKS_PER_PROVIDER = 20;
export const MAX_DESCRIPTION_LENGTH = 500;

/** The kinds a webhook receives: at least one, each of the catalogue; answered deduplicated and sorted. */
export function eventKindsOf(events: readonly string[]): PartnerEventKind[] {
  if (!events.length)
    throw new InvalidArgument(`events must name at least one of ${PARTNER_EVENT_KINDS.join(', ')}`, {
      field: 'events',
    });
  const unknown = events.find((kind) => !isPartnerEventKind(kind));
  if (unknown !== undefined)
    throw new InvalidArgument(`events: "${unknown}" is not an event kind (${PARTNER_EVENT_KINDS.join(', ')})`, {
      field: 'events',
    });
  return [...new Set(events as readonly PartnerEventKind[])].sort();
}

/** An optional free-text note; blank is none. */
export function descriptionOf(description: string | undefined): string | null {
  const text = description?.trim() ?? '';
  if (text.length > MAX_DESCRIPTION_LENGTH)
    throw new InvalidArgument(`description is longer than ${MAX_DESCRIPTION_LENGTH} characters`, {
      field: 'description',
    });
  return text || null;
}

/** A webhook id as the caller wrote it: malformed is INVALID_ARGUMENT (unknown and another org's are NOT_FOUND). */
export function webhookIdOf(id: string, field = 'webhookId'): string {
  if (!isId(id)) throw new InvalidArgument(`${field} is not a webhook id`, { field });
  return id;
}

const DELIVERY_ID = /^msg_[0-9a-f]{24}$/;

/** A delivery's id, also its `webhook-id` header: `msg_` + 24 hex (no `.`, never chosen by a user). */
export function newDeliveryId(): string {
  return `msg_${randomBytes(12).toString('hex')}`;
}

/** A delivery id as the caller wrote it: malformed is INVALID_ARGUMENT (unknown and another org's are NOT_FOUND). */
export function deliveryIdOf(id: string, field = 'deliveryId'): string {
  if (!DELIVERY_ID.test(id)) throw new InvalidArgument(`${field} is not a delivery id (msg_…)`, { field });
  return id;
}
