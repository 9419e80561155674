import type { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import {
  InvalidArgument,
  enqueueEvents,
  now,
  requireOrg,
  requireScope,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import type { DeleteChatResult, DeleteConversationResult } from '@svc/proto/inbox/v1';
import {
  ChatLabelRow,
  ChatRow,
  ConversationRow,
  MessageEditRow,
  MessageLabelRow,
  MessageReactionRow,
  MessageRow,
  MessageTermRow,
  ReadStateRow,
  VisitorEventRow,
} from '../entities';
import { chatEvent, conversationEvent } from './events';
import { findChat, findConversation } from './lookups';
import type { MediaLibrary } from './media';

/** Rows that hang off a message, removed with it (a hard delete leaves nothing behind, not even its search terms). */
const MESSAGE_DEPENDENTS: EntityTarget<ObjectLiteral>[] = [
  MessageEditRow,
  MessageReactionRow,
  MessageLabelRow,
  MessageTermRow,
];

/**
 * Hard deletes (CONVERSATIONS_DELETE, never implied by CONVERSATIONS_MANAGE): a thread with everything in it, or a
 * conversation with all its threads. One transaction each, events through the outbox in it
 * (docs/decisions/0032-inbox-deletes.md).
 */
export class Deletion {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly media: MediaLibrary,
  ) {}

  async deleteChat(principal: Principal, chatId: string): Promise<DeleteChatResult> {
    requireScope(principal, ApiScope.CONVERSATIONS_DELETE);
    const orgId = requireOrg(principal);
    const blobKeys = await this.dataSource.transaction(async (manager) => {
      const chat = await findChat(manager, orgId, chatId);
      const keys = await this.media.removeWithChats(manager, orgId, [chat.id]);
      await removeChats(manager, orgId, [chat]);
      await enqueueEvents(manager, [chatEvent('chat.deleted', chat)], now());
      return keys;
    });
    this.relay().nudge();
    await this.media.discardBlobs(blobKeys);
    return { chatId };
  }

  /**
   * Deletes the conversation and its threads. `removePeople: true` is refused (after the scope checks, before
   * anything is read): erasing the person is not built yet, and a delete must not claim an erasure nobody performs
   * (docs/decisions/0046-remove-people-refused.md).
   */
  async deleteConversation(
    principal: Principal,
    conversationId: string,
    removePeople: boolean,
  ): Promise<DeleteConversationResult> {
    requireScope(principal, ApiScope.CONVERSATIONS_DELETE);
    if (removePeople) {
      requireScope(principal, ApiScope.CONTACTS_ERASE);
      throw new InvalidArgument(
        'removePeople: true is not available yet (erasing a person is not built); delete with removePeople: false',
        { field: 'removePeople' },
      );
    }
    const orgId = requireOrg(principal);
    const { chatIds, blobKeys } = await this.dataSource.transaction(async (manager) => {
      const conversation = await findConversation(manager, orgId, conversationId);
      const chats = await manager.findBy(ChatRow, { orgId, conversationId: conversation.id });
      const keys = await this.media.removeWithChats(
        manager,
        orgId,
        chats.map((chat) => chat.id),
      );
      await removeChats(manager, orgId, chats);
      await manager.delete(ConversationRow, { orgId, id: conversation.id });
      await enqueueEvents(
        manager,
        [
          ...chats.map((chat) => chatEvent('chat.deleted', chat)),
          conversationEvent('conversation.deleted', conversation),
        ],
        now(),
      );
      return { chatIds: chats.map((chat) => chat.id), blobKeys: keys };
    });
    this.relay().nudge();
    await this.media.discardBlobs(blobKeys);
    return { conversationId, deletedChatIds: chatIds, contactEraseRequested: false };
  }
}

/**
 * Removes the chats with their messages, the messages' edits, reactions, labels and search terms, the read positions
 * the threads' labels and the visitor event logs (kept while the chat exists, docs/decisions/0080).
 */
async function removeChats(manager: EntityManager, orgId: string, chats: ChatRow[]): Promise<void> {
  if (!chats.length) return;
  const chatIds = chats.map((chat) => chat.id);
  for (const dependent of MESSAGE_DEPENDENTS)
    await manager
      .createQueryBuilder()
      .delete()
      .from(dependent)
      .where('org_id = :orgId', { orgId })
      .andWhere('message_id IN (SELECT id FROM messages WHERE org_id = :orgId AND chat_id IN (:...chatIds))', {
        chatIds,
      })
      .execute();
  // Read positions, thread labels and the visitor event log, then the messages (their dependents are gone).
  for (const perChat of [ReadStateRow, ChatLabelRow, VisitorEventRow, MessageRow])
    await manager
      .createQueryBuilder()
      .delete()
      .from(perChat)
      .where('org_id = :orgId AND chat_id IN (:...chatIds)', { orgId, chatIds })
      .execute();
  await manager
    .createQueryBuilder()
    .delete()
    .from(ChatRow)
    .where('org_id = :orgId AND id IN (:...chatIds)', { orgId, chatIds })
    .execute();
}
