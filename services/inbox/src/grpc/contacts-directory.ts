import type { ServiceError } from '@grpc/grpc-js';
import { NotFound, domainErrorOf, systemPrincipal, unary, type Peer, type PrincipalSigner } from '@svc/kit';
import type { Principal } from '@svc/proto/common/v1';
import type { ContactsServiceClient } from '@svc/proto/contacts/v1';
import type { ContactErasureServiceClient } from '@svc/proto/contacts/v1/erasure';
import type { ContactDisplay, ContactDisplays } from '../domain/contact-copy';
import type { ErasureRequests } from '../domain/erasure/conversation-erasure';

/** Runs a call to contacts, answering its failure as the domain error its status names. */
async function contactsCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw domainErrorOf(error as ServiceError);
  }
}

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
        const contact = await contactsCall(() =>
          unary(
            client.getContact.bind(client),
            { id: contactId },
            signer().metadata(systemPrincipal(orgId), 'contacts'),
          ),
        );
        return { name: contact.name ?? null, email: contact.email ?? null, phone: contact.phone ?? null };
      } catch (error) {
        if (error instanceof NotFound) return undefined;
        throw error;
      }
    },
  };
}

/**
 * Contacts' EraseContact for `apiDeleteConversation(removePeople: true)`: a SYSTEM principal of the org that carries
 * the member or API key id of the caller who asked, which contacts records as the receipt's `requestedBy`.
 */
export function contactErasureRequests(
  erasures: Peer<ContactErasureServiceClient>,
  signer: () => PrincipalSigner,
): ErasureRequests {
  return {
    async request(orgId, contactId, requestedBy: Principal) {
      const client = erasures.get();
      const onBehalf = { ...systemPrincipal(orgId), memberId: requestedBy.memberId, keyId: requestedBy.keyId };
      const receipt = await contactsCall(() =>
        unary(client.eraseContact.bind(client), { contactId }, signer().metadata(onBehalf, 'contacts')),
      );
      return receipt.id;
    },
  };
}
