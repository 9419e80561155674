import type { EntityManager } from 'typeorm';
import { insertRows, termsOf } from '@svc/kit';
import { ConversationRow, MessageTermRow, type MessageRow } from '../entities';

/**
 * The term rows of a message: none once it is soft-deleted (its text is gone from every read). Each carries its
 * conversation's creation time, read here (one primary-key read), for unfiltered conversation search.
 */
async function rowsOf(manager: EntityManager, message: MessageRow): Promise<MessageTermRow[]> {
  const terms = message.deletedAt ? [] : termsOf(message.text);
  if (!terms.length) return [];
  const conversation = message.conversationId
    ? await manager.findOne(ConversationRow, {
        select: { id: true, createdAt: true },
        where: { id: message.conversationId },
      })
    : null;
  const conversationCreatedAt = conversation?.createdAt ?? null;
  return terms.map((term) =>
    Object.assign(new MessageTermRow(), {
      orgId: message.orgId,
      term,
      createdAt: message.createdAt,
      messageId: message.id,
      chatId: message.chatId,
      conversationId: message.conversationId,
      internal: message.internal,
      conversationCreatedAt,
    }),
  );
}

/**
 * Keeps `message_terms` in step with message text, in the caller's transaction (docs/decisions/0054): every write of
 * a message's text or visibility goes through here. Hard deletes remove the rows with the message's other dependents
 * (deletion.ts).
 */
export const searchIndex = {
  /** A new message (sent, received, a note). */
  async add(manager: EntityManager, message: MessageRow): Promise<void> {
    await insertRows(manager, MessageTermRow, await rowsOf(manager, message));
  },

  /** A message whose text changed (an edit) or that was soft-deleted. */
  async replace(manager: EntityManager, message: MessageRow): Promise<void> {
    await manager.delete(MessageTermRow, { messageId: message.id });
    await insertRows(manager, MessageTermRow, await rowsOf(manager, message));
  },
};
