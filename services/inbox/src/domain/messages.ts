import type { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import {
  FailedPrecondition,
  Forbidden,
  enqueueEvents,
  isDuplicateKeyError,
  entitySql,
  hasScope,
  keysetPage,
  newId,
  now,
  requireOrg,
  requireScope,
  type NewEvent,
  type OutboxRelay,
  type PageRequest,
  type Principal,
  ResponseFields,
} from '@svc/kit';
import { ApiScope, PrincipalKind } from '@svc/proto/common/v1';
import {
  AuthorType,
  ChatStatus,
  DeliveryStatus,
  MessageDirection,
  MessageType,
  type CreateCombinedMessageInput,
  type Message,
  type MessagePage,
} from '@svc/proto/inbox/v1';
import { ChatRow, ConversationRow, MessageRow } from '../entities';
import { authorOf } from './actor';
import { chatEvent, messageEvent } from './events';
import { findChat, findConversation } from './lookups';
import type { MediaAttachments } from './media-attachments';
import type { MessageReader } from './message-details';
import {
  idempotencyExternalId,
  validExternalId,
  validInbound,
  validMessage,
  validText,
  type InboundInput,
  type ValidMessage,
} from './message-input';
import { requireOpenWindow } from './messaging-window';
import { requireContactSide, requireReachable, uploadedForContact } from './visitor-access';
import { lockChat, recordVisitorEvent } from './visitor-log';
import { messageView } from './views';
import { searchIndex } from './search-index';
import { requireNotErased } from './erasure/erased-contacts';

export { MAX_TEXT_LENGTH } from './message-input';

/** ReceiveMessage's input: TEXT, or MEDIA / LOCATION / CONTACT_CARD / BUTTONS by what it carries (message-input). */
export interface InboundMessage extends InboundInput {
  chatId: string;
  externalId?: string | undefined;
}

/** Which messages a read returns: everything visible, or only internal notes (the NOTES_WRITE reads). */
type Visibility = 'visible' | 'notes';

export class Messages {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly reader: MessageReader,
    private readonly attachments: MediaAttachments,
  ) {}

  /**
   * Sends into a chat; `internal: true` posts an internal note, which needs NOTES_WRITE and is never delivered. With an
   * `idempotencyKey` (SYSTEM callers: flows' retried steps) a repeat in the same chat answers the first message.
   */
  async send(
    principal: Principal,
    chatId: string,
    input: CreateCombinedMessageInput,
    idempotencyKey?: string,
    platformTemplate = false,
  ): Promise<Message> {
    requireScope(principal, ApiScope.MESSAGES_SEND);
    if (input.internal) requireScope(principal, ApiScope.NOTES_WRITE);
    const orgId = requireOrg(principal);
    if (idempotencyKey !== undefined && principal.kind !== PrincipalKind.SYSTEM)
      throw new Forbidden('only services of this installation may name an idempotencyKey', {
        field: 'idempotencyKey',
      });
    if (platformTemplate && principal.kind !== PrincipalKind.SYSTEM)
      throw new Forbidden('only services of this installation may send a platform template', {
        field: 'platformTemplate',
      });
    const externalId = idempotencyExternalId(idempotencyKey);
    const valid = validMessage(input);
    return this.insertOnce(
      orgId,
      chatId,
      externalId,
      (manager) => (externalId ? lockChat(manager, orgId, chatId) : findChat(manager, orgId, chatId)),
      async (manager, chat) => {
        if (!input.internal && !platformTemplate) await requireOpenWindow(manager, chat, now());
        const message = await this.insertOutbound(manager, principal, chat, valid, input.internal, externalId);
        if (valid.content?.mediaIds) await this.attachments.attach(manager, message, valid.content.mediaIds);
        return message;
      },
    );
  }

  /** Posts an internal note on a conversation, into its most recent thread. */
  async sendConversationNote(principal: Principal, conversationId: string, text: string): Promise<Message> {
    requireScope(principal, ApiScope.NOTES_WRITE);
    const orgId = requireOrg(principal);
    const valid: ValidMessage = { type: MessageType.TEXT, text: validText(text, 'text'), content: null };
    const row = await this.dataSource.transaction(async (manager) => {
      const conversation = await findConversation(manager, orgId, conversationId);
      const [chat] = await manager.find(ChatRow, {
        where: { orgId, conversationId: conversation.id },
        order: { createdAt: 'DESC', id: 'DESC' },
        take: 1,
      });
      if (!chat)
        throw new FailedPrecondition('the conversation has no thread to post into', { field: 'conversationId' });
      return this.insertOutbound(manager, principal, chat, valid, true);
    });
    this.relay().nudge();
    return this.createdView(row);
  }

  /**
   * A message the contact sent: SYSTEM callers (channels) and the chat's own VISITOR (widget-api). It reopens a closed
   * chat unless the contact is blocked. With an `externalId` a retry in the same chat answers the first message (the
   * chat row lock orders concurrent retries; the unique index (chat, external id) backs it).
   */
  async receive(principal: Principal, inbound: InboundMessage): Promise<Message> {
    requireContactSide(principal);
    const orgId = requireOrg(principal);
    const valid = validInbound(inbound);
    const externalId = validExternalId(inbound.externalId);
    return this.insertOnce(
      orgId,
      inbound.chatId,
      externalId,
      async (manager) => {
        const chat = requireReachable(principal, await lockChat(manager, orgId, inbound.chatId));
        // Never a message on behalf of an erased contact (decision 0169). Not a locking read: the chat's row lock,
        // held already, orders this write with the erasure, which locks the contact's chats after its tombstone.
        await requireNotErased(manager, orgId, chat.contactId, 'contactId', false);
        return chat;
      },
      (manager, chat) => this.insertInbound(manager, principal, chat, valid, externalId),
    );
  }

  /**
   * Inserts a message unless the chat already has one with `externalId`, which then answers (nothing recorded, no
   * event). `lock` finds the chat first in the transaction, with its row lock when there is an id to check, so
   * concurrent repeats are ordered; a repeat that lost the race on the unique index (chat, external id) regardless
   * answers the winner's message.
   */
  private async insertOnce(
    orgId: string,
    chatId: string,
    externalId: string | null,
    lock: (manager: EntityManager) => Promise<ChatRow>,
    insert: (manager: EntityManager, chat: ChatRow) => Promise<MessageRow>,
  ): Promise<Message> {
    let recorded: { row: MessageRow; created: boolean };
    try {
      recorded = await this.dataSource.transaction(async (manager) => {
        const chat = await lock(manager);
        const existing = externalId && (await manager.findOneBy(MessageRow, { orgId, chatId: chat.id, externalId }));
        if (existing) return { row: existing, created: false };
        return { row: await insert(manager, chat), created: true };
      });
    } catch (error) {
      if (!externalId || !isDuplicateKeyError(error)) throw error;
      const winner = await this.dataSource.manager.findOneBy(MessageRow, { orgId, chatId, externalId });
      if (!winner) throw error;
      recorded = { row: winner, created: false };
    }
    this.relay().nudge();
    return recorded.created
      ? this.createdView(recorded.row)
      : this.reader.viewOf(this.dataSource.manager, recorded.row);
  }

  private async insertInbound(
    manager: EntityManager,
    principal: Principal,
    chat: ChatRow,
    valid: ValidMessage,
    externalId: string | null,
  ): Promise<MessageRow> {
    const orgId = chat.orgId;
    const conversation = chat.conversationId
      ? await manager.findOneBy(ConversationRow, { id: chat.conversationId, orgId })
      : null;
    const at = now();
    const message = manager.create(MessageRow, {
      id: newId(at),
      orgId,
      chatId: chat.id,
      conversationId: chat.conversationId,
      direction: MessageDirection.INBOUND,
      authorType: AuthorType.CONTACT,
      authorId: chat.contactId,
      type: valid.type,
      text: valid.text,
      content: valid.content,
      internal: false,
      deliveryStatus: DeliveryStatus.NOT_APPLICABLE,
      createdAt: at,
      editedAt: null,
      deletedAt: null,
      externalId,
      failureReason: null,
    });
    await manager.insert(MessageRow, message);
    if (valid.content?.mediaIds)
      await this.attachments.attach(manager, message, valid.content.mediaIds, 'mediaIds', (media) =>
        uploadedForContact(principal, chat, media),
      );
    await searchIndex.add(manager, message);
    const events: NewEvent[] = [
      messageEvent('message.created', message, chat, {
        visitorSeq: await recordVisitorEvent(manager, chat, 'message.created', message.id, at),
      }),
    ];
    if (chat.status === ChatStatus.CLOSED && !conversation?.blocked) {
      chat.status = ChatStatus.OPEN;
      chat.closedAt = null;
      const seq = await recordVisitorEvent(manager, chat, 'chat.reopened', null, at);
      events.push(chatEvent('chat.reopened', chat, undefined, [], seq));
    }
    await manager.update(
      ChatRow,
      { id: chat.id },
      { updatedAt: at, lastMessageAt: at, status: chat.status, closedAt: chat.closedAt },
    );
    if (conversation) await manager.update(ConversationRow, { id: conversation.id }, { lastMessageAt: at });
    await enqueueEvents(manager, events, at);
    return message;
  }

  /**
   * The view of a message this call has just committed: it has no edits, reactions or labels yet (each needs the
   * message id, which nobody had before), so only its media, if any, are read.
   */
  private async createdView(row: MessageRow): Promise<Message> {
    return row.content?.mediaIds?.length ? this.reader.viewOf(this.dataSource.manager, row) : messageView(row);
  }

  /** Oldest first; internal notes are filtered in the query, so without NOTES_WRITE they are not even counted. */
  async list(
    principal: Principal,
    chatId: string,
    page: PageRequest,
    fields = ResponseFields.ALL,
  ): Promise<MessagePage> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    return this.chatMessages(principal, chatId, page, 'visible', fields);
  }

  async chatNotes(
    principal: Principal,
    chatId: string,
    page: PageRequest,
    fields = ResponseFields.ALL,
  ): Promise<MessagePage> {
    requireScope(principal, ApiScope.NOTES_WRITE);
    return this.chatMessages(principal, chatId, page, 'notes', fields);
  }

  /** Every thread of the conversation merged in time order, oldest first. */
  async listConversation(
    principal: Principal,
    conversationId: string,
    page: PageRequest,
    fields = ResponseFields.ALL,
  ): Promise<MessagePage> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    return this.conversationMessages(principal, conversationId, page, 'visible', fields);
  }

  async conversationNotes(
    principal: Principal,
    conversationId: string,
    page: PageRequest,
    fields = ResponseFields.ALL,
  ): Promise<MessagePage> {
    requireScope(principal, ApiScope.NOTES_WRITE);
    return this.conversationMessages(principal, conversationId, page, 'notes', fields);
  }

  /** Callers check the scope: MESSAGES_READ for messages, NOTES_WRITE alone for notes (spec 4.2). */
  private async chatMessages(
    principal: Principal,
    chatId: string,
    page: PageRequest,
    visibility: Visibility,
    fields: ResponseFields,
  ) {
    const orgId = requireOrg(principal);
    const chat = await findChat(this.dataSource.manager, orgId, chatId);
    const query = this.messages().where('m.orgId = :orgId AND m.chatId = :chatId', { orgId, chatId: chat.id });
    return this.page(principal, orgId, query, page, visibility, fields);
  }

  private async conversationMessages(
    principal: Principal,
    conversationId: string,
    page: PageRequest,
    visibility: Visibility,
    fields: ResponseFields,
  ) {
    const orgId = requireOrg(principal);
    const conversation = await findConversation(this.dataSource.manager, orgId, conversationId);
    const query = this.messages().where('m.orgId = :orgId AND m.conversationId = :conversationId', {
      orgId,
      conversationId: conversation.id,
    });
    return this.page(principal, orgId, query, page, visibility, fields);
  }

  private messages(): SelectQueryBuilder<MessageRow> {
    return this.dataSource.getRepository(MessageRow).createQueryBuilder('m');
  }

  private async page(
    principal: Principal,
    orgId: string,
    query: SelectQueryBuilder<MessageRow>,
    page: PageRequest,
    visibility: Visibility,
    fields: ResponseFields,
  ): Promise<MessagePage> {
    if (visibility === 'notes') query.andWhere('m.internal = :internal', { internal: true });
    else if (!hasScope(principal, ApiScope.NOTES_WRITE)) query.andWhere('m.internal = :internal', { internal: false });
    const rows = await keysetPage(
      query,
      { at: 'm.createdAt', id: 'm.id' },
      (row) => ({ at: row.createdAt, id: row.id }),
      page,
    );
    return this.reader.page(this.dataSource.manager, orgId, rows, fields);
  }

  private async insertOutbound(
    manager: EntityManager,
    principal: Principal,
    chat: ChatRow,
    valid: ValidMessage,
    internal: boolean,
    externalId: string | null = null,
  ): Promise<MessageRow> {
    const at = now();
    const message = manager.create(MessageRow, {
      id: newId(at),
      orgId: chat.orgId,
      chatId: chat.id,
      conversationId: chat.conversationId,
      direction: MessageDirection.OUTBOUND,
      ...authorOf(principal),
      type: valid.type,
      text: valid.text,
      content: valid.content,
      internal,
      deliveryStatus: internal ? DeliveryStatus.NOT_APPLICABLE : DeliveryStatus.QUEUED,
      createdAt: at,
      editedAt: null,
      deletedAt: null,
      externalId,
      failureReason: null,
    });
    // Written from the entity metadata (kit `entitySql`): every message a flow sends passes here.
    await entitySql(this.dataSource, MessageRow).insert(manager, [message]);
    await searchIndex.add(manager, message);
    await entitySql(this.dataSource, ChatRow).update(
      manager,
      { updatedAt: at, ...(internal ? {} : { lastMessageAt: at }) },
      { id: chat.id },
    );
    if (!internal && chat.conversationId)
      await entitySql(this.dataSource, ConversationRow).update(
        manager,
        { lastMessageAt: at, updatedAt: at },
        { id: chat.conversationId },
      );
    const visitorSeq = internal ? 0 : await recordVisitorEvent(manager, chat, 'message.created', message.id, at);
    await enqueueEvents(manager, [messageEvent('message.created', message, chat, { visitorSeq })], at);
    return message;
  }
}
