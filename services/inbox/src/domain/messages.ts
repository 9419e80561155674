import type { DataSource } from 'typeorm';
import {
  InvalidArgument,
  enqueueEvents,
  hasScope,
  keysetPage,
  newId,
  now,
  requireOrg,
  requireScope,
  requireSystem,
  type OutboxRelay,
  type Page,
  type PageRequest,
  type Principal,
} from '@svc/kit';
import { ApiScope, PrincipalKind } from '@svc/proto/common/v1';
import {
  AuthorType,
  ChatStatus,
  DeliveryStatus,
  MessageDirection,
  type CreateCombinedMessageInput,
} from '@svc/proto/inbox/v1';
import { ChatRow, MessageRow } from '../entities';
import { findChat } from './chats';
import { chatEvent, messageEvent } from './events';

export const MAX_TEXT_LENGTH = 10_000;

function authorOf(principal: Principal): { authorType: AuthorType; authorId: string } {
  switch (principal.kind) {
    case PrincipalKind.MEMBER_SESSION:
      return { authorType: AuthorType.MEMBER, authorId: principal.memberId };
    case PrincipalKind.API_KEY:
      return { authorType: AuthorType.API_KEY, authorId: principal.keyId };
    default:
      return { authorType: AuthorType.SYSTEM, authorId: '' };
  }
}

function validText(text: string): string {
  if (!text.trim()) throw new InvalidArgument('text must not be empty', { field: 'input.text' });
  if (text.length > MAX_TEXT_LENGTH)
    throw new InvalidArgument(`text must be at most ${MAX_TEXT_LENGTH} characters`, { field: 'input.text' });
  return text;
}

export class Messages {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
  ) {}

  /** Sends into a chat; `internal: true` posts an internal note, which needs NOTES_WRITE and is never delivered. */
  async send(principal: Principal, chatId: string, input: CreateCombinedMessageInput): Promise<MessageRow> {
    requireScope(principal, ApiScope.MESSAGES_SEND);
    if (input.internal) requireScope(principal, ApiScope.NOTES_WRITE);
    const orgId = requireOrg(principal);
    const text = validText(input.text);
    const row = await this.dataSource.transaction(async (manager) => {
      const chat = await findChat(manager, orgId, chatId);
      const at = now();
      const message = manager.create(MessageRow, {
        id: newId(at),
        orgId,
        chatId: chat.id,
        direction: MessageDirection.OUTBOUND,
        ...authorOf(principal),
        text,
        internal: input.internal,
        deliveryStatus: input.internal ? DeliveryStatus.NOT_APPLICABLE : DeliveryStatus.QUEUED,
        createdAt: at,
      });
      await manager.insert(MessageRow, message);
      await manager.update(
        ChatRow,
        { id: chat.id },
        { updatedAt: at, ...(input.internal ? {} : { lastMessageAt: at }) },
      );
      await enqueueEvents(manager, [messageEvent('message.created', message)], at);
      return message;
    });
    this.relay().nudge();
    return row;
  }

  /** A message the contact sent (SYSTEM callers); it reopens a closed chat. */
  async receive(principal: Principal, chatId: string, text: string): Promise<MessageRow> {
    requireSystem(principal);
    const orgId = requireOrg(principal);
    const row = await this.dataSource.transaction(async (manager) => {
      const chat = await findChat(manager, orgId, chatId);
      const at = now();
      const message = manager.create(MessageRow, {
        id: newId(at),
        orgId,
        chatId: chat.id,
        direction: MessageDirection.INBOUND,
        authorType: AuthorType.CONTACT,
        authorId: chat.contactId,
        text: validText(text),
        internal: false,
        deliveryStatus: DeliveryStatus.NOT_APPLICABLE,
        createdAt: at,
      });
      await manager.insert(MessageRow, message);
      const events = [messageEvent('message.created', message)];
      if (chat.status === ChatStatus.CLOSED) {
        chat.status = ChatStatus.OPEN;
        chat.closedAt = null;
        events.push(chatEvent('chat.reopened', chat));
      }
      await manager.update(
        ChatRow,
        { id: chat.id },
        { updatedAt: at, lastMessageAt: at, status: chat.status, closedAt: chat.closedAt },
      );
      await enqueueEvents(manager, events, at);
      return message;
    });
    this.relay().nudge();
    return row;
  }

  /** Oldest first; internal notes are filtered in the query, so without NOTES_WRITE they are not even counted. */
  async list(principal: Principal, chatId: string, page: PageRequest): Promise<Page<MessageRow>> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const chat = await findChat(this.dataSource.manager, orgId, chatId);
    const query = this.dataSource
      .getRepository(MessageRow)
      .createQueryBuilder('m')
      .where('m.orgId = :orgId AND m.chatId = :chatId', { orgId, chatId: chat.id });
    if (!hasScope(principal, ApiScope.NOTES_WRITE)) query.andWhere('m.internal = :internal', { internal: false });
    return keysetPage(query, { at: 'm.createdAt', id: 'm.id' }, (row) => ({ at: row.createdAt, id: row.id }), page);
  }
}
