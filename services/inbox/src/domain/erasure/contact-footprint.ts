import type { EntityManager } from 'typeorm';
import { entitySql } from '@svc/kit';
import { AuthorType } from '@svc/proto/inbox/v1';
import { ChatRow, ConversationRow, MessageReactionRow, MessageRow, type MediaRow } from '../../entities';
import type { MediaLibrary } from '../media';

/** What the inbox holds about one contact: the rows an erasure removes (the preview counts the same). */
export interface ContactFootprint {
  conversations: ConversationRow[];
  /** Every thread of the contact, with their messages, notes, edits, labels, search terms, read states, visitor logs. */
  chats: ChatRow[];
  messages: number;
  notes: number;
  /** On the threads' messages, and the contact's own reactions anywhere. */
  reactions: number;
  /** Attached only in the threads, or uploaded by the contact (MediaLibrary.leavingWith). */
  media: MediaRow[];
}

/**
 * Reads the contact's footprint. `lock` (inside the erasure's transaction, MySQL family): the threads' rows are locked
 * first, so a message arriving meanwhile waits and then finds no thread, rather than landing in one being erased
 * (the same chat-first lock order as every write of a thread, visitor-log.ts).
 */
export async function contactFootprint(
  manager: EntityManager,
  media: MediaLibrary,
  orgId: string,
  contactId: string,
  lock = false,
): Promise<ContactFootprint> {
  // The lock first: a concurrent erasure of the same contact (the consumer and apiDeleteConversation) waits here, then
  // reads what the first one left: nothing.
  const chats = lock
    ? await lockChatsOf(manager, orgId, contactId)
    : await manager.findBy(ChatRow, { orgId, contactId });
  const conversations = await manager.findBy(ConversationRow, { orgId, contactId });
  const chatIds = chats.map((chat) => chat.id);
  return {
    conversations,
    chats,
    messages: await countMessages(manager, orgId, chatIds, false),
    notes: await countMessages(manager, orgId, chatIds, true),
    reactions: await countReactions(manager, orgId, chatIds, contactId),
    media: await media.leavingWith(manager, orgId, chatIds, contactId),
  };
}

/** The reactions the erasure removes: those on the threads' messages, and the contact's own anywhere. */
function countReactions(manager: EntityManager, orgId: string, chatIds: string[], contactId: string) {
  return manager
    .createQueryBuilder(MessageReactionRow, 'r')
    .where('r.orgId = :orgId', { orgId })
    .andWhere(
      chatIds.length
        ? '((r.reactorType = :contact AND r.reactorId = :contactId) OR r.messageId IN (SELECT m.id FROM messages m WHERE m.org_id = :orgId AND m.chat_id IN (:...chatIds)))'
        : 'r.reactorType = :contact AND r.reactorId = :contactId',
      { contact: AuthorType.CONTACT, contactId, chatIds },
    )
    .getCount();
}

async function countMessages(manager: EntityManager, orgId: string, chatIds: string[], internal: boolean) {
  if (!chatIds.length) return 0;
  return manager
    .createQueryBuilder(MessageRow, 'm')
    .where('m.orgId = :orgId AND m.chatId IN (:...chatIds) AND m.internal = :internal', { orgId, chatIds, internal })
    .getCount();
}

async function lockChatsOf(manager: EntityManager, orgId: string, contactId: string): Promise<ChatRow[]> {
  if (manager.connection.options.type === 'better-sqlite3') return manager.findBy(ChatRow, { orgId, contactId });
  const sql = entitySql(manager.connection, ChatRow);
  return sql.select(
    manager,
    `WHERE ${sql.column('orgId')} = ? AND ${sql.column('contactId')} = ? ORDER BY ${sql.column('id')} FOR UPDATE`,
    [orgId, contactId],
  );
}
