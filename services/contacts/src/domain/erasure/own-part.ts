import type { DataSource, EntityManager } from 'typeorm';
import { kindCounts, type ContactErasure, type ErasurePart } from '@svc/kit';
import { ContactRow, IdentityRow } from '../../entities';
import { countContactValues, deleteContactValues } from '../people-fields';

/** What contacts keeps about a contact, in the order the receipt lists it. */
export const CONTACTS_KINDS = ['contact', 'identities', 'field_values'] as const;

/**
 * Contacts' own part of an erasure: the contact row, its identities (emails, phones, channel user ids, chats) and
 * its people field values. Erased inside the request's transaction (`Erasures.request`), so the contact is
 * unreadable from the moment the erasure is recorded.
 */
export class ContactsErasurePart implements ErasurePart {
  readonly service = 'contacts' as const;

  constructor(private readonly dataSource: DataSource) {}

  preview(orgId: string, contactId: string) {
    return this.countIn(this.dataSource.manager, orgId, contactId);
  }

  async erase(manager: EntityManager, { orgId, contactId }: ContactErasure) {
    // The contact's row first: its lock makes a concurrent people field write wait and then find no contact, or
    // commit first and have its value deleted below (docs/decisions/0153).
    const contact = await manager.delete(ContactRow, { orgId, id: contactId });
    const identities = await manager.delete(IdentityRow, { orgId, contactId });
    const fieldValues = await deleteContactValues(manager, orgId, contactId);
    return {
      counts: kindCounts(CONTACTS_KINDS, {
        contact: contact.affected ?? 0,
        identities: identities.affected ?? 0,
        field_values: fieldValues,
      }),
    };
  }

  private async countIn(manager: EntityManager, orgId: string, contactId: string) {
    const [contact, identities, fieldValues] = await Promise.all([
      manager.countBy(ContactRow, { orgId, id: contactId }),
      manager.countBy(IdentityRow, { orgId, contactId }),
      countContactValues(manager, orgId, contactId),
    ]);
    return kindCounts(CONTACTS_KINDS, { contact, identities, field_values: fieldValues });
  }
}
