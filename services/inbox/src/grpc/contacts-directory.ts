import type { ServiceError } from '@grpc/grpc-js';
import { NotFound, domainErrorOf, systemPrincipal, unary, type Peer, type PrincipalSigner } from '@svc/kit';
import type { ContactsServiceClient } from '@svc/proto/contacts/v1';
import type { ContactDisplay, ContactDisplays } from '../domain/contact-copy';

/**
 * The contacts service as the inbox asks it (SYSTEM principal of the org, audience `contacts`): a contact's display
 * fields now, for the inbox's copy of them. A contact contacts does not know (erased, or never created there) has
 * none: undefined. Any other failure is thrown, so the event that asked is redelivered.
 */
export function contactsDirectory(
  contacts: Peer<ContactsServiceClient>,
  signer: () => PrincipalSigner,
): ContactDisplays {
  return {
    async displayOf(orgId, contactId): Promise<ContactDisplay | undefined> {
      const client = contacts.get();
      try {
        const contact = await unary(
          client.getContact.bind(client),
          { id: contactId },
          signer().metadata(systemPrincipal(orgId), 'contacts'),
        );
        return { name: contact.name ?? null, email: contact.email ?? null, phone: contact.phone ?? null };
      } catch (error) {
        const domainError = domainErrorOf(error as ServiceError);
        if (domainError instanceof NotFound) return undefined;
        throw domainError;
      }
    },
  };
}
