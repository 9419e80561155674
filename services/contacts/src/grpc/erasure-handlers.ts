import type { DataSource } from 'typeorm';
import { implement, requireOrg, requireScope, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { ContactErasureServiceService } from '@svc/proto/contacts/v1/erasure';
import type { ContactsErasurePart } from '../domain/erasure/own-part';
import { previewErase, type PreviewOf, type RemoteParticipant } from '../domain/erasure/preview';
import { requesterOf, type Erasures } from '../domain/erasure/receipts';

export const CONTACT_ERASURE_GRPC_SERVICE = 'svc.contacts.v1.ContactErasureService';

export function contactErasureService(
  domain: {
    dataSource: DataSource;
    erasures: Erasures;
    ownPart: ContactsErasurePart;
    remote: Record<RemoteParticipant, PreviewOf>;
  },
  deps: ImplementDeps,
) {
  const handlers: ServiceHandlers<typeof ContactErasureServiceService> = {
    previewErase: async (request, { principal }) => {
      requireScope(principal, ApiScope.CONTACTS_ERASE);
      return previewErase(domain.dataSource, domain.ownPart, domain.remote, requireOrg(principal), request.contactId);
    },
    eraseContact: async (request, { principal }) => {
      requireScope(principal, ApiScope.CONTACTS_ERASE);
      return domain.erasures.request(requireOrg(principal), request.contactId, requesterOf(principal));
    },
  };
  return implement('contacts', ContactErasureServiceService, handlers, deps);
}
