import type { DataSource, EntityManager } from 'typeorm';
import { isId, requireOrg, requireSystem, type Principal } from '@svc/kit';
import { IdentifierType, type LookupContactRequest, type LookupContactResponse } from '@svc/proto/contacts/v1';
import { IdentityRow } from '../entities';
import type { ChatOwnership } from './chat-ownership';
import { tryNormalizePhone } from './normalize';

/** Asks the inbox which contact owns a chat (undefined: no such chat in the org). */
export type ChatOwnerOf = (orgId: string, chatId: string) => Promise<string | undefined>;

const NOT_FOUND: LookupContactResponse = { found: false, contactId: '', latestChatId: '' };

function keyOf(request: LookupContactRequest): { type: IdentifierType; scope: string; value: string } | undefined {
  const value = request.value.trim();
  if (!value || value.length > 255) return undefined;
  switch (request.identifierType) {
    case IdentifierType.EMAIL:
      return { type: IdentifierType.EMAIL, scope: '', value: value.toLowerCase() };
    case IdentifierType.PHONE_NUMBER: {
      const phone = tryNormalizePhone(value);
      return phone ? { type: IdentifierType.PHONE_NUMBER, scope: '', value: phone } : undefined;
    }
    case IdentifierType.CHANNEL_USER_ID: {
      const scope = request.channelIntegrationId ?? '';
      return isId(scope) ? { type: IdentifierType.CHANNEL_USER_ID, scope, value } : undefined;
    }
    case IdentifierType.CHAT_ID:
      return isId(value) ? { type: IdentifierType.CHAT_ID, scope: '', value } : undefined;
    default:
      return undefined;
  }
}

async function latestChatOf(manager: EntityManager, orgId: string, contactId: string): Promise<string> {
  const chat = await manager.findOne(IdentityRow, {
    where: { orgId, contactId, type: IdentifierType.CHAT_ID },
    order: { createdAt: 'DESC', id: 'DESC' },
  });
  return chat?.value ?? '';
}

/**
 * Resolves an identifier to one contact of the org (SYSTEM callers: webhook-ingress, flows). A Chat ID the contacts
 * service has not seen yet is asked of the inbox (the chat names its contact) and remembered.
 */
export async function lookupContact(
  dataSource: DataSource,
  principal: Principal,
  request: LookupContactRequest,
  chatOwnerOf: ChatOwnerOf,
  chats: ChatOwnership,
): Promise<LookupContactResponse> {
  requireSystem(principal);
  const orgId = requireOrg(principal);
  const key = keyOf(request);
  if (!key) return NOT_FOUND;
  const manager = dataSource.manager;
  const identity = await manager.findOneBy(IdentityRow, { orgId, ...key });
  if (identity) {
    const latestChatId =
      key.type === IdentifierType.CHAT_ID ? key.value : await latestChatOf(manager, orgId, identity.contactId);
    return { found: true, contactId: identity.contactId, latestChatId };
  }
  if (key.type !== IdentifierType.CHAT_ID) return NOT_FOUND;
  const owner = await chatOwnerOf(orgId, key.value);
  if (!owner || !(await chats.record(orgId, key.value, owner, new Date()))) return NOT_FOUND;
  return { found: true, contactId: owner, latestChatId: key.value };
}
