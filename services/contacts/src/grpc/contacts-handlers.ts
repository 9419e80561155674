import type { DataSource } from 'typeorm';
import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { ContactsServiceService, type ContactInput } from '@svc/proto/contacts/v1';
import { listContacts } from '../domain/contact-list';
import type { ChatOwnership } from '../domain/chat-ownership';
import type { ContactWithIdentities, Contacts } from '../domain/contacts';
import { lookupContact, type ChatOwnerOf } from '../domain/lookup';
import { contactView } from '../domain/views';

const EMPTY_INPUT: ContactInput = { identities: [] };
const view = ({ row, identities, attributes }: ContactWithIdentities) => contactView(row, identities, attributes);

export function contactsService(
  domain: { contacts: Contacts; chats: ChatOwnership; dataSource: DataSource; chatOwnerOf: ChatOwnerOf },
  deps: ImplementDeps,
) {
  const { contacts } = domain;
  const handlers: ServiceHandlers<typeof ContactsServiceService> = {
    createContact: async (request, { principal }) =>
      view(await contacts.create(principal, request.input ?? EMPTY_INPUT)),
    updateContact: async (request, { principal }) =>
      view(await contacts.update(principal, request.id, request.input ?? EMPTY_INPUT)),
    upsertContact: async (request, { principal }) =>
      view(await contacts.upsert(principal, request.input ?? EMPTY_INPUT)),
    getContact: async (request, { principal }) => view(await contacts.get(principal, request.id)),
    getContactByExternalId: async (request, { principal }) =>
      view(await contacts.getByExternalId(principal, request.externalId)),
    listContacts: async (request, { principal }) => {
      const page = await listContacts(domain.dataSource, principal, request.pagination);
      return { ...page, data: page.data.map(view) };
    },
    isChatAppAIdEditable: async (request, { principal }) => ({
      editable: await contacts.isChatAppAIdEditable(principal, request.contactId),
    }),
    lookupContact: async (request, { principal }) =>
      lookupContact(domain.dataSource, principal, request, domain.chatOwnerOf, domain.chats),
  };
  return implement('contacts', ContactsServiceService, handlers, deps);
}
