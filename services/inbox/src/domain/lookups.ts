import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { InvalidArgument, NotFound, entitySql, isId } from '@svc/kit';
import { ChatRow, CollectionRow, ConversationRow, LabelRow, MessageRow } from '../entities';

/** Fails with BAD_USER_INPUT unless `value` is a 24-hex id; `field` names the argument. */
export function requireId(value: string, field: string): string {
  if (!isId(value)) throw new InvalidArgument(`${field} must be a 24-character hex id`, { field });
  return value;
}

/**
 * Reads a row of the caller's org or fails with NOT_FOUND, also for another org's row (no existence oracle). A
 * primary-key read on every RPC's path, so written from the entity metadata (kit `entitySql`), not a query builder.
 */
async function findInOrg<T extends ObjectLiteral & { id: string; orgId: string }>(
  manager: EntityManager,
  entity: EntityTarget<T>,
  orgId: string,
  id: string,
  field: string,
  noun: string,
): Promise<T> {
  requireId(id, field);
  const sql = entitySql(manager.connection, entity);
  const [row] = await sql.select(manager, `WHERE ${sql.column('id')} = ? AND ${sql.column('orgId')} = ?`, [id, orgId]);
  if (!row) throw new NotFound(`${noun} not found`, { field });
  return row;
}

export const findChat = (manager: EntityManager, orgId: string, chatId: string, field = 'chatId') =>
  findInOrg(manager, ChatRow, orgId, chatId, field, 'chat');

export const findConversation = (manager: EntityManager, orgId: string, conversationId: string) =>
  findInOrg(manager, ConversationRow, orgId, conversationId, 'conversationId', 'conversation');

export const findLabel = (manager: EntityManager, orgId: string, labelId: string, field = 'labelId') =>
  findInOrg(manager, LabelRow, orgId, labelId, field, 'label');

export const findCollection = (manager: EntityManager, orgId: string, collectionId: string, field = 'collectionId') =>
  findInOrg(manager, CollectionRow, orgId, collectionId, field, 'collection');

/** A message the caller may see: internal notes count as absent without NOTES_WRITE. */
export async function findMessage(
  manager: EntityManager,
  orgId: string,
  messageId: string,
  seesNotes: boolean,
): Promise<MessageRow> {
  const row = await findInOrg(manager, MessageRow, orgId, messageId, 'messageId', 'message');
  if (row.internal && !seesNotes) throw new NotFound('message not found', { field: 'messageId' });
  return row;
}
