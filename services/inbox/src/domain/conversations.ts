import type { DataSource, EntityManager } from 'typeorm';
import {
  enqueueEvents,
  keysetPage,
  now,
  requireOrg,
  requireScope,
  type NewEvent,
  type OutboxRelay,
  type PageRequest,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { ChatStatus, type ChatPage, type Conversation } from '@svc/proto/inbox/v1';
import { ChatRow, ConversationRow } from '../entities';
import { readerOf } from './actor';
import { chatPage } from './chat-views';
import { conversationViewOf } from './conversation-views';
import { chatEvent, conversationEvent } from './events';
import { recordVisitorEvent } from './visitor-log';
import { findConversation, requireId } from './lookups';
import { requireMember, type MemberDirectory } from './members';

export class Conversations {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly members: MemberDirectory,
  ) {}

  async get(principal: Principal, conversationId: string): Promise<Conversation> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const manager = this.dataSource.manager;
    const row = await findConversation(manager, requireOrg(principal), conversationId);
    return conversationViewOf(manager, readerOf(principal), row);
  }

  /** The conversation's threads, newest first. */
  async threads(principal: Principal, conversationId: string, page: PageRequest): Promise<ChatPage> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    const conversation = await findConversation(manager, orgId, conversationId);
    const query = manager
      .getRepository(ChatRow)
      .createQueryBuilder('c')
      .where('c.orgId = :orgId AND c.conversationId = :conversationId', { orgId, conversationId: conversation.id });
    const rows = await keysetPage(
      query,
      { at: 'c.createdAt', id: 'c.id' },
      (row) => ({ at: row.createdAt, id: row.id }),
      page,
      'descending',
    );
    return chatPage(manager, orgId, readerOf(principal), rows);
  }

  /** Blocking closes the open threads; a blocked contact's new messages land in them without reopening them. */
  async block(principal: Principal, conversationId: string, blocked: boolean): Promise<Conversation> {
    return this.change(principal, conversationId, async (row, manager, at) => {
      if (row.blocked === blocked) return [];
      row.blocked = blocked;
      await manager.update(ConversationRow, { id: row.id }, { blocked, updatedAt: at });
      const events: NewEvent[] = [conversationEvent(blocked ? 'conversation.blocked' : 'conversation.unblocked', row)];
      if (blocked) {
        const open = await manager.findBy(ChatRow, {
          orgId: row.orgId,
          conversationId: row.id,
          status: ChatStatus.OPEN,
        });
        for (const chat of open) {
          chat.status = ChatStatus.CLOSED;
          chat.closedAt = at;
          chat.updatedAt = at;
          await manager.update(ChatRow, { id: chat.id }, { status: chat.status, closedAt: at, updatedAt: at });
          const seq = await recordVisitorEvent(manager, chat, 'chat.closed', null, at);
          events.push(chatEvent('chat.closed', chat, undefined, [], seq));
        }
      }
      return events;
    });
  }

  async setAi(principal: Principal, conversationId: string, enabled: boolean): Promise<Conversation> {
    return this.change(principal, conversationId, async (row, manager, at) => {
      if (row.aiEnabled === enabled) return [];
      row.aiEnabled = enabled;
      await manager.update(ConversationRow, { id: row.id }, { aiEnabled: enabled, updatedAt: at });
      return [conversationEvent('conversation.ai_changed', row)];
    });
  }

  /**
   * Assigns every open thread of the conversation to the operator (closed threads keep their history). The operator
   * must be a member of the org now, as for `Chats.assign` (the conversation is found first).
   */
  async assignThreads(principal: Principal, conversationId: string, operatorId: string): Promise<Conversation> {
    requireScope(principal, ApiScope.CONVERSATIONS_MANAGE);
    const orgId = requireOrg(principal);
    requireId(operatorId, 'operatorId');
    await findConversation(this.dataSource.manager, orgId, conversationId);
    await requireMember(this.members, orgId, operatorId);
    return this.change(principal, conversationId, async (row, manager, at) => {
      const open = await manager.findBy(ChatRow, { orgId: row.orgId, conversationId: row.id, status: ChatStatus.OPEN });
      const events: NewEvent[] = [];
      for (const chat of open.filter((c) => c.assigneeId !== operatorId)) {
        chat.assigneeId = operatorId;
        chat.updatedAt = at;
        await manager.update(ChatRow, { id: chat.id }, { assigneeId: operatorId, updatedAt: at });
        events.push(chatEvent('chat.assigned', chat));
      }
      return events;
    });
  }

  /** One CONVERSATIONS_MANAGE change in a transaction with its events; no events means nothing changed. */
  private async change(
    principal: Principal,
    conversationId: string,
    apply: (row: ConversationRow, manager: EntityManager, at: Date) => Promise<NewEvent[]>,
  ): Promise<Conversation> {
    requireScope(principal, ApiScope.CONVERSATIONS_MANAGE);
    const orgId = requireOrg(principal);
    const row = await this.dataSource.transaction(async (manager) => {
      const conversation = await findConversation(manager, orgId, conversationId);
      const at = now();
      const events = await apply(conversation, manager, at);
      await enqueueEvents(manager, events, at);
      return conversation;
    });
    this.relay().nudge();
    return conversationViewOf(this.dataSource.manager, readerOf(principal), row);
  }
}
