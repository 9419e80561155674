import { In, type DataSource, type EntityManager } from 'typeorm';
import {
  InvalidArgument,
  NotFound,
  enqueueEvents,
  hasScope,
  now,
  requireOrg,
  requireScope,
  type NewEvent,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import type { Chat, Conversation } from '@svc/proto/inbox/v1';
import { ChatRow, MessageRow } from '../entities';
import { readerOf } from './actor';
import { chatViewOf } from './chat-views';
import { conversationViewOf } from './conversation-views';
import { chatEvent, conversationEvent } from './events';
import { findConversation, requireId } from './lookups';
import { advanceReadState, latestMessage } from './read-state';
import { markVisitorMessagesRead } from './team-read';
import { lockChat } from './visitor-log';

const MAX_READ_IDS = 100;

/** Per-reader read positions: marking read moves the caller's watermark forward, never back. */
export class Reading {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
  ) {}

  /** Reads up to the newest of the given messages of the chat. */
  async readMessages(principal: Principal, chatId: string, messageIds: string[]): Promise<Chat> {
    const reader = this.reader(principal); // the scope before the arguments, as in every refusal
    if (!messageIds.length || messageIds.length > MAX_READ_IDS)
      throw new InvalidArgument(`messageIds must hold 1 to ${MAX_READ_IDS} ids`, { field: 'messageIds' });
    messageIds.forEach((id) => requireId(id, 'messageIds'));
    return this.readChat(reader, chatId, async (manager, chat) => {
      const where = { orgId: chat.orgId, chatId: chat.id, id: In(messageIds) };
      const rows = await manager.find(MessageRow, {
        where: hasScope(principal, ApiScope.NOTES_WRITE) ? where : { ...where, internal: false },
      });
      if (rows.length !== new Set(messageIds).size)
        throw new NotFound('message not found in this chat', { field: 'messageIds' });
      return rows.reduce((a, b) =>
        a.createdAt.getTime() > b.createdAt.getTime() ||
        (a.createdAt.getTime() === b.createdAt.getTime() && a.id > b.id)
          ? a
          : b,
      );
    });
  }

  async readAll(principal: Principal, chatId: string): Promise<Chat> {
    return this.readChat(this.reader(principal), chatId, (manager, chat) =>
      latestMessage(manager, chat.orgId, chat.id),
    );
  }

  /** Marks every thread of the conversation read up to its newest message. */
  async readAllConversation(principal: Principal, conversationId: string): Promise<Conversation> {
    const { orgId, readerId } = this.reader(principal);
    const conversation = await this.dataSource.transaction(async (manager) => {
      const row = await findConversation(manager, orgId, conversationId);
      const chats = await manager.findBy(ChatRow, { orgId, conversationId: row.id });
      const at = now();
      const events: NewEvent[] = [];
      // Locked in id order: two readers of the same conversation take its chats' locks in one order.
      for (const found of chats.sort((a, b) => (a.id < b.id ? -1 : 1))) {
        const chat = await lockChat(manager, orgId, found.id);
        const upTo = await latestMessage(manager, orgId, chat.id);
        if (!upTo) continue;
        const position = { at: upTo.createdAt, id: upTo.id };
        if (await advanceReadState(manager, orgId, chat.id, readerId, position))
          events.push(chatEvent('chat.read', chat, { readerId, upTo: upTo.createdAt }));
        await markVisitorMessagesRead(manager, chat, position, at);
      }
      if (events.length) events.push(conversationEvent('conversation.read', row, { readerId }));
      await enqueueEvents(manager, events, at);
      return row;
    });
    this.relay().nudge();
    return conversationViewOf(this.dataSource.manager, readerId, conversation);
  }

  private reader(principal: Principal): { orgId: string; readerId: string } {
    requireScope(principal, ApiScope.CONVERSATIONS_MANAGE);
    const orgId = requireOrg(principal);
    const readerId = readerOf(principal);
    if (!readerId) throw new InvalidArgument('only a member or an API key has a read position', { field: 'principal' });
    return { orgId, readerId };
  }

  private async readChat(
    { orgId, readerId }: { orgId: string; readerId: string },
    chatId: string,
    upToOf: (manager: EntityManager, chat: ChatRow) => Promise<MessageRow | null>,
  ): Promise<Chat> {
    const chat = await this.dataSource.transaction(async (manager) => {
      // Locked first: reading may change the visitor's messages (one lock order, chat then messages; decision 0080).
      const row = await lockChat(manager, orgId, chatId);
      const upTo = await upToOf(manager, row);
      if (!upTo) return row;
      const position = { at: upTo.createdAt, id: upTo.id };
      const at = now();
      if (await advanceReadState(manager, orgId, row.id, readerId, position)) {
        await enqueueEvents(manager, [chatEvent('chat.read', row, { readerId, upTo: upTo.createdAt })], at);
      }
      await markVisitorMessagesRead(manager, row, position, at);
      return row;
    });
    this.relay().nudge();
    return chatViewOf(this.dataSource.manager, readerId, chat);
  }
}
