import type { NewEvent } from '@svc/kit';
import type { ContactRow } from '../entities';

export const PEOPLE_TOPIC = 'svc.contacts.people.v1';

/** No personal data in the event: consumers that need it read the contact through the API. */
export function contactEvent(type: 'contact.created' | 'contact.updated', row: ContactRow): NewEvent {
  return {
    topic: PEOPLE_TOPIC,
    key: row.id,
    type,
    orgId: row.orgId,
    payload: { contact: { contactId: row.id, externalId: row.externalId ?? undefined } },
  };
}
