import type { DataSource } from 'typeorm';
import { isId, type DeliveredRecord, type EventBus, type Logger, type Subscription } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { ChatRow, ConversationRow } from '../entities';

/** Contacts' `contact.created|updated` (ids only: consumers read the contact). */
export const PEOPLE_TOPIC = 'svc.contacts.people.v1';
/** One group shared by every inbox replica. */
export const CONTACT_COPY_GROUP = 'inbox.contact-copy';

/** The contact's fields the inbox shows on its chats and conversations (and searches chats by). */
export interface ContactDisplay {
  name: string | null;
  email: string | null;
  phone: string | null;
}

/** Where the copy comes from: the contacts service (undefined: it does not know the contact, e.g. erased). */
export interface ContactDisplays {
  displayOf(orgId: string, contactId: string): Promise<ContactDisplay | undefined>;
}

/**
 * Keeps the inbox's copy of a contact's display fields (`chats` and `conversations` `contact_name|email|phone`) equal
 * to the contact's (docs/decisions/0167): on `contact.updated` the contact is read again from contacts and written
 * onto every row of it. Reading it again, rather than trusting the event's order, makes a redelivered or late event
 * harmless; a contact contacts no longer knows (erased) leaves an empty copy. No inbox event: nothing about the
 * thread changed, and contacts' own event already says the person did.
 */
export class ContactCopy {
  constructor(
    private readonly dataSource: DataSource,
    private readonly contacts: ContactDisplays,
  ) {}

  /** The number of rows (chats and conversations) now showing the contact's current fields. */
  async refresh(orgId: string, contactId: string): Promise<number> {
    if (!isId(orgId) || !isId(contactId)) return 0;
    const display = await this.contacts.displayOf(orgId, contactId);
    const fields = {
      contactName: display?.name ?? null,
      contactEmail: display?.email ?? null,
      contactPhone: display?.phone ?? null,
    };
    return this.dataSource.transaction(async (manager) => {
      const chats = await manager.update(ChatRow, { orgId, contactId }, fields);
      const conversations = await manager.update(ConversationRow, { orgId, contactId }, fields);
      return (chats.affected ?? 0) + (conversations.affected ?? 0);
    });
  }
}

/** Consumes contacts' `svc.contacts.people.v1` and refreshes the copy of each updated contact. */
export function subscribeContactCopy(
  bus: EventBus,
  copy: ContactCopy,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  return bus.subscribe({
    // Prefixed like the topics: installations (and test runs) sharing a cluster must not share consumer groups.
    groupId: topicPrefix + CONTACT_COPY_GROUP,
    topics: [topicPrefix + PEOPLE_TOPIC],
    fromBeginning: true,
    handle: async (record: DeliveredRecord) => {
      const envelope = Envelope.decode(record.value);
      if (envelope.type !== 'contact.updated' || !envelope.contact) return;
      const rows = await copy.refresh(envelope.orgId, envelope.contact.contactId);
      if (rows) logger.debug({ contactId: envelope.contact.contactId, rows }, 'contact copy refreshed');
    },
  });
}
