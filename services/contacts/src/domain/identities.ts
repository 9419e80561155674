import type { EntityManager } from 'typeorm';
import { Conflict, InvalidArgument, isDuplicateKeyError, isId, newId } from '@svc/kit';
import { IdentifierType, type ContactIdentity } from '@svc/proto/contacts/v1';
import { IdentityRow } from '../entities';
import { normalizeEmail, normalizePhone } from './normalize';

export interface IdentityKey {
  type: IdentifierType;
  scope: string;
  value: string;
}

/** Validates and normalises an identity given by a caller into its unique lookup key. */
export function identityKey(identity: ContactIdentity, field = 'identities'): IdentityKey {
  const value = identity.value.trim();
  switch (identity.type) {
    case IdentifierType.EMAIL:
      return { type: identity.type, scope: '', value: normalizeEmail(value, field) };
    case IdentifierType.PHONE_NUMBER:
      return { type: identity.type, scope: '', value: normalizePhone(value, field) };
    case IdentifierType.CHANNEL_USER_ID: {
      const scope = identity.channelIntegrationId ?? '';
      if (!isId(scope))
        throw new InvalidArgument('a channel user id needs the channelIntegrationId of its channel', { field });
      if (!value || value.length > 255)
        throw new InvalidArgument('a channel user id must be 1 to 255 characters', { field });
      return { type: identity.type, scope, value };
    }
    case IdentifierType.CHAT_ID:
      if (!isId(value)) throw new InvalidArgument('a chat id must be a 24-character hex id', { field });
      return { type: identity.type, scope: '', value };
    default:
      throw new InvalidArgument('identity type must be EMAIL, PHONE_NUMBER, CHANNEL_USER_ID or CHAT_ID', { field });
  }
}

/** How a conflict names an identifier to a person. */
const NOUN: Record<IdentifierType, string> = {
  [IdentifierType.IDENTIFIER_TYPE_UNSPECIFIED]: 'identifier',
  [IdentifierType.EMAIL]: 'email',
  [IdentifierType.PHONE_NUMBER]: 'phone number',
  [IdentifierType.CHANNEL_USER_ID]: 'channel user id',
  [IdentifierType.CHAT_ID]: 'chat',
  [IdentifierType.UNRECOGNIZED]: 'identifier',
};

/**
 * Adds an identity to a contact. One already pointing at the same contact is kept (idempotent); one pointing at
 * another contact of the org is a conflict naming `field` (the argument that carried it: `email`, `phone` or
 * `identities`), so every identifier resolves to at most one person. Nothing is merged or moved: see
 * docs/decisions/0034-assignees-and-contact-conflicts.md.
 */
export async function addIdentity(
  manager: EntityManager,
  orgId: string,
  contactId: string,
  key: IdentityKey,
  at: Date,
  field = 'identities',
): Promise<void> {
  const conflict = () => new Conflict(`another contact already has this ${NOUN[key.type]}`, { field });
  const existing = await manager.findOneBy(IdentityRow, { orgId, ...key });
  if (existing) {
    if (existing.contactId === contactId) return;
    throw conflict();
  }
  try {
    await manager.insert(IdentityRow, { id: newId(at), orgId, contactId, ...key, createdAt: at });
  } catch (error) {
    if (isDuplicateKeyError(error)) throw conflict();
    throw error;
  }
}

/** Replaces the contact's identity of one kind (its email or phone field) with the new value, or none. */
export async function replaceFieldIdentity(
  manager: EntityManager,
  orgId: string,
  contactId: string,
  type: IdentifierType.EMAIL | IdentifierType.PHONE_NUMBER,
  previous: string | null,
  next: string | null,
  at: Date,
): Promise<void> {
  if (previous === next) return;
  if (previous) await manager.delete(IdentityRow, { orgId, contactId, type, scope: '', value: previous });
  const field = type === IdentifierType.EMAIL ? 'email' : 'phone';
  if (next) await addIdentity(manager, orgId, contactId, { type, scope: '', value: next }, at, field);
}
