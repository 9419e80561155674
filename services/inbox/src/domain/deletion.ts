import { In, type DataSource, type EntityManager, type EntityTarget, type ObjectLiteral } from 'typeorm';
import { enqueueEvents, now, requireOrg, requireScope, type OutboxRelay, type Principal } from '@svc/kit';
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
import type { ConversationErasure } from './erasure/conversation-erasure';
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
    private readonly erasure: ConversationErasure,
  ) {}

  async deleteChat(principal: Principal, chatId: string): Promise<DeleteChatResult> {
    requireScope(principal, ApiScope.CONVERSATIONS_DELETE);
    const orgId = requireOrg(principal);
    const blobKeys = await this.dataSource.transaction(async (manager) =>
      removeThreads(manager, this.media, orgId, { chats: [await findChat(manager, orgId, chatId)], conversations: [] }),
    );
    this.relay().nudge();
    await this.media.discardBlobs(blobKeys);
    return { chatId };
  }

  /**
   * Deletes the conversation and its threads. `removePeople: true` (after both scope checks) erases the conversation's
   * contact everywhere instead, this conversation included (ConversationErasure, docs/decisions/0168).
   */
  async deleteConversation(
    principal: Principal,
    conversationId: string,
    removePeople: boolean,
  ): Promise<DeleteConversationResult> {
    requireScope(principal, ApiScope.CONVERSATIONS_DELETE);
    if (removePeople) requireScope(principal, ApiScope.CONTACTS_ERASE);
    const orgId = requireOrg(principal);
    if (removePeople) return this.erasure.deleteAndErase(principal, orgId, conversationId);
    const { chatIds, blobKeys } = await this.dataSource.transaction(async (manager) => {
      const conversation = await findConversation(manager, orgId, conversationId);
      const chats = await manager.findBy(ChatRow, { orgId, conversationId: conversation.id });
      const keys = await removeThreads(manager, this.media, orgId, { chats, conversations: [conversation] });
      return { chatIds: chats.map((chat) => chat.id), blobKeys: keys };
    });
    this.relay().nudge();
    await this.media.discardBlobs(blobKeys);
    return { conversationId, deletedChatIds: chatIds, contactEraseRequested: false };
  }
}

/** What one hard delete removes: threads, and the conversations they belong to (none for apiDeleteChat). */
export interface Threads {
  chats: ChatRow[];
  conversations: ConversationRow[];
}

/**
 * One hard delete inside the caller's transaction (apiDeleteChat, apiDeleteConversation, an erasure): the threads with
 * everything in them and their media (`MediaLibrary.removeWithChats`; `uploadedBy`: also every item that contact
 * uploaded), then the conversations, with `chat.deleted` and `conversation.deleted` each. Returns the blob keys to
 * discard once the transaction has committed.
 */
export async function removeThreads(
  manager: EntityManager,
  media: MediaLibrary,
  orgId: string,
  threads: Threads,
  uploadedBy?: string,
): Promise<string[]> {
  const { chats, conversations } = threads;
  const keys = await media.removeWithChats(
    manager,
    orgId,
    chats.map((chat) => chat.id),
    uploadedBy,
  );
  await removeChats(manager, orgId, chats);
  if (conversations.length)
    await manager.delete(ConversationRow, { orgId, id: In(conversations.map((conversation) => conversation.id)) });
  const events = [
    ...chats.map((chat) => chatEvent('chat.deleted', chat)),
    ...conversations.map((conversation) => conversationEvent('conversation.deleted', conversation)),
  ];
  if (events.length) await enqueueEvents(manager, events, now());
  return keys;
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
