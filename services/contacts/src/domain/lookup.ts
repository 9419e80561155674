import type { DataSource, EntityManager } from 'typeorm';
import { isDuplicateKeyError, isId, newId, requireOrg, requireSystem, type Principal } from '@svc/kit';
import { IdentifierType, type LookupContactRequest, type LookupContactResponse } from '@svc/proto/contacts/v1';
import { ContactRow, IdentityRow } from '../entities';
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

/** Records that a contact owns a chat; recording it again changes nothing (redelivered events, lookups). */
export async function recordChatOwnership(
  dataSource: DataSource,
  orgId: string,
  chatId: string,
  contactId: string,
  at: Date,
): Promise<boolean> {
  if (!isId(chatId) || !isId(contactId)) return false;
  if (!(await dataSource.manager.existsBy(ContactRow, { orgId, id: contactId }))) return false;
  try {
    await dataSource.manager.insert(IdentityRow, {
      id: newId(at),
      orgId,
      contactId,
      type: IdentifierType.CHAT_ID,
      scope: '',
      value: chatId,
      createdAt: at,
    });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
  return true;
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
  if (!owner || !(await recordChatOwnership(dataSource, orgId, key.value, owner, new Date()))) return NOT_FOUND;
  return { found: true, contactId: owner, latestChatId: key.value };
}
