import type { DataSource } from 'typeorm';
import {
  InvalidArgument,
  NotFound,
  enqueueEvents,
  keysetPage,
  now,
  requireOrg,
  requireVisitor,
  toIso,
  type OutboxRelay,
  type PageRequest,
  type Principal,
} from '@svc/kit';
import { AuthorType, ChatStatus, DeliveryStatus, MessageDirection } from '@svc/proto/inbox/v1';
import type { VisitorChat, VisitorEventPage, VisitorMessagePage } from '@svc/proto/inbox/v1/visitor';
import { ChatRow, MessageRow, VisitorEventRow } from '../entities';
import { advanceDeliveryStatus } from './delivery-status';
import { chatEvent, typingEvent } from './events';
import { findChat, requireId } from './lookups';
import { requireReachable } from './visitor-access';
import { lockChat } from './visitor-log';
import { messagesById, visitorChatView, type VisitorMessageViews } from './visitor-views';

/** ListVisitorEvents' page size: the default and the cap. */
export const MAX_VISITOR_EVENTS = 200;

/**
 * VisitorService: the chat as its own visitor sees it (docs/decisions/0080, 0081). Internal notes are filtered in
 * every query; members appear by display name and avatar only.
 */
export class VisitorSide {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly views: VisitorMessageViews,
  ) {}

  async chat(principal: Principal, chatId: string): Promise<VisitorChat> {
    return visitorChatView(this.dataSource.manager, await this.reachable(principal, chatId));
  }

  /** Newest first, with the message pagination convention (spec 2.2). */
  async messages(principal: Principal, chatId: string, page: PageRequest): Promise<VisitorMessagePage> {
    const chat = await this.reachable(principal, chatId);
    const query = this.dataSource
      .getRepository(MessageRow)
      .createQueryBuilder('m')
      .where('m.orgId = :orgId AND m.chatId = :chatId AND m.internal = :internal', {
        orgId: chat.orgId,
        chatId: chat.id,
        internal: false,
      });
    const rows = await keysetPage(
      query,
      { at: 'm.createdAt', id: 'm.id' },
      (row) => ({ at: row.createdAt, id: row.id }),
      page,
      'descending',
    );
    return { ...rows, data: await this.views.views(this.dataSource.manager, chat.orgId, rows.data) };
  }

  /** The chat's visitor events after `afterSeq`, oldest first, each message as it is now. */
  async events(principal: Principal, chatId: string, afterSeq: number, limit?: number): Promise<VisitorEventPage> {
    if (!Number.isInteger(afterSeq) || afterSeq < 0)
      throw new InvalidArgument('afterSeq must be 0 or more', { field: 'afterSeq' });
    const take = limit ?? MAX_VISITOR_EVENTS;
    if (!Number.isInteger(take) || take < 1 || take > MAX_VISITOR_EVENTS)
      throw new InvalidArgument(`limit must be 1 to ${MAX_VISITOR_EVENTS}`, { field: 'limit' });
    const chat = await this.reachable(principal, chatId);
    const manager = this.dataSource.manager;
    const rows = await manager
      .getRepository(VisitorEventRow)
      .createQueryBuilder('e')
      .where('e.chatId = :chatId AND e.seq > :afterSeq', { chatId: chat.id, afterSeq })
      .orderBy('e.seq', 'ASC')
      .take(take + 1)
      .getMany();
    const page = rows.slice(0, take);
    const messageIds = [...new Set(page.flatMap((e) => (e.messageId ? [e.messageId] : [])))];
    const messages = await messagesById(manager, chat.orgId, messageIds);
    const views = new Map(
      (await this.views.views(manager, chat.orgId, [...messages.values()])).map((view) => [view._id, view]),
    );
    const last = page[page.length - 1]?.seq ?? afterSeq;
    return {
      data: page.map((event) => ({
        seq: event.seq,
        type: event.type,
        chatId: event.chatId,
        occurredAt: toIso(event.occurredAt),
        message: event.messageId ? views.get(event.messageId) : undefined,
        chatStatus:
          event.type === 'chat.closed'
            ? ChatStatus.CLOSED
            : event.type === 'chat.reopened'
              ? ChatStatus.OPEN
              : ChatStatus.CHAT_STATUS_UNSPECIFIED,
      })),
      hasNext: rows.length > take,
      lastEventSeq: Math.max(chat.visitorSeq, last),
    };
  }

  /**
   * The visitor has seen the chat up to `messageId`: its read position moves forward (never back), and the member
   * messages up to it become READ by the forward-only rule (docs/decisions/0082), with `chat.read` (reader: the
   * contact) and each `message.status_changed`.
   */
  async markRead(principal: Principal, chatId: string, messageId: string): Promise<VisitorChat> {
    requireId(messageId, 'messageId');
    const orgId = this.visitorOrg(principal);
    const chat = await this.dataSource.transaction(async (manager) => {
      const row = requireReachable(principal, await lockChat(manager, orgId, chatId));
      const upTo = await manager.findOneBy(MessageRow, { orgId, chatId: row.id, id: messageId, internal: false });
      if (!upTo) throw new NotFound('message not found in this chat', { field: 'messageId' });
      const at = now();
      const ahead =
        !row.visitorReadAt ||
        upTo.createdAt.getTime() > row.visitorReadAt.getTime() ||
        (upTo.createdAt.getTime() === row.visitorReadAt.getTime() && upTo.id > (row.visitorReadId ?? ''));
      if (ahead) {
        row.visitorReadAt = upTo.createdAt;
        row.visitorReadId = upTo.id;
        await manager.update(ChatRow, { id: row.id }, { visitorReadAt: upTo.createdAt, visitorReadId: upTo.id });
        await enqueueEvents(
          manager,
          [chatEvent('chat.read', row, { readerId: row.contactId, upTo: upTo.createdAt })],
          at,
        );
      }
      const unreadByVisitor = await manager
        .getRepository(MessageRow)
        .createQueryBuilder('m')
        .where('m.orgId = :orgId AND m.chatId = :chatId', { orgId, chatId: row.id })
        .andWhere('m.direction = :outbound AND m.internal = :internal', {
          outbound: MessageDirection.OUTBOUND,
          internal: false,
        })
        .andWhere('m.deliveryStatus IN (:...statuses)', {
          statuses: [DeliveryStatus.QUEUED, DeliveryStatus.SENT, DeliveryStatus.DELIVERED],
        })
        .andWhere('(m.createdAt < :at OR (m.createdAt = :at AND m.id <= :id))', { at: upTo.createdAt, id: upTo.id })
        .getMany();
      await advanceDeliveryStatus(manager, row, unreadByVisitor, DeliveryStatus.READ, null, at);
      return row;
    });
    this.relay().nudge();
    return visitorChatView(this.dataSource.manager, chat);
  }

  /** The visitor is typing: chat.typing for the dashboard (nothing stored but the outbox row). */
  async typing(principal: Principal, chatId: string, typing: boolean): Promise<VisitorChat> {
    const chat = await this.reachable(principal, chatId);
    await this.dataSource.transaction((manager) =>
      enqueueEvents(manager, [
        typingEvent(chat, { authorType: AuthorType.CONTACT, displayName: '', avatarUrl: '' }, typing),
      ]),
    );
    this.relay().nudge();
    return visitorChatView(this.dataSource.manager, chat);
  }

  private visitorOrg(principal: Principal): string {
    requireVisitor(principal);
    return requireOrg(principal);
  }

  private async reachable(principal: Principal, chatId: string): Promise<ChatRow> {
    const orgId = this.visitorOrg(principal);
    return requireReachable(principal, await findChat(this.dataSource.manager, orgId, chatId));
  }
}
