import type { DataSource, EntityManager } from 'typeorm';
import {
  containsPattern,
  enqueueEvents,
  hasScope,
  idsOfOrg,
  keysetPage,
  newId,
  now,
  requireOrg,
  requireScope,
  requireSystem,
  type NewEvent,
  type OutboxRelay,
  type PageRequest,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import {
  ChatField,
  ChatPriority,
  ChatStatus,
  type Chat,
  type ChatContact,
  type ChatPage,
  type SearchFilter,
} from '@svc/proto/inbox/v1';
import { ChatRow, ConversationRow } from '../entities';
import { readerOf } from './actor';
import { parseChatFieldChange } from './chat-fields';
import { addChatLabel, replaceChatLabels } from './chat-labels';
import { chatPage, chatViewOf } from './chat-views';
import { chatEvent, conversationEvent } from './events';
import { applyFilter, validFilter } from './search-filters';
import { findChat, findCollection, requireId } from './lookups';
import { requireMember, type MemberDirectory } from './members';
import { chatChannelType } from './messaging-window';
import { lockChat, recordVisitorEvent } from './visitor-log';
import { requireNotErased } from './erasure/erased-contacts';

export { findChat } from './lookups';

export interface ChatSearch {
  query?: string | undefined;
  status?: ChatStatus | undefined;
  filter?: SearchFilter | undefined;
  page: PageRequest;
}

/** Finds the contact's conversation in the org or starts one (a contact has exactly one per org). */
export async function conversationFor(
  manager: EntityManager,
  orgId: string,
  contact: ChatContact,
  at: Date,
  events: NewEvent[],
): Promise<ConversationRow> {
  const existing = await manager.findOneBy(ConversationRow, { orgId, contactId: contact._id });
  if (existing) return existing;
  const row = manager.create(ConversationRow, {
    id: newId(at),
    orgId,
    contactId: contact._id,
    contactName: contact.name ?? null,
    contactEmail: contact.email ?? null,
    contactPhone: contact.phone ?? null,
    blocked: false,
    aiEnabled: false,
    createdAt: at,
    updatedAt: at,
    lastMessageAt: null,
  });
  await manager.insert(ConversationRow, row);
  events.push(conversationEvent('conversation.created', row));
  return row;
}

export class Chats {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly members: MemberDirectory,
  ) {}

  /**
   * Which of `chatIds` name chats of the org, of one channel kind when `channelType` is given (SYSTEM callers:
   * contacts checks a Chat ID identity, and whether a contact has a ChatAppA chat, decision 0155).
   */
  find(principal: Principal, chatIds: string[], channelType?: string): Promise<string[]> {
    // The kind is one of the enum's names (checked), so it can stand in the condition as a literal.
    const kind = channelType === undefined ? undefined : chatChannelType(channelType);
    return idsOfOrg(
      principal,
      this.dataSource.manager,
      ChatRow,
      chatIds,
      'chatIds',
      kind ? `row.channelType = '${kind}'` : undefined,
    );
  }

  async get(principal: Principal, chatId: string): Promise<Chat> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const manager = this.dataSource.manager;
    return chatViewOf(manager, readerOf(principal), await findChat(manager, requireOrg(principal), chatId));
  }

  /** Newest chats first; `query` matches the contact's name, email or phone, so it needs PII_READ. */
  async search(principal: Principal, search: ChatSearch): Promise<ChatPage> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const query = this.dataSource.getRepository(ChatRow).createQueryBuilder('c').where('c.orgId = :orgId', { orgId });
    const filter = validFilter({ ...search.filter, status: search.filter?.status ?? search.status });
    applyFilter(query, 'chat', filter, hasScope(principal, ApiScope.NOTES_WRITE));
    const text = search.query?.trim();
    if (text) {
      requireScope(principal, ApiScope.PII_READ);
      const like = containsPattern(text);
      query.andWhere(
        "(LOWER(c.contactName) LIKE :like ESCAPE '!' OR LOWER(c.contactEmail) LIKE :like ESCAPE '!' OR c.contactPhone LIKE :like ESCAPE '!')",
        { like },
      );
    }
    const page = await keysetPage(
      query,
      { at: 'c.createdAt', id: 'c.id' },
      (row) => ({ at: row.createdAt, id: row.id }),
      search.page,
      'descending',
    );
    return chatPage(this.dataSource.manager, orgId, readerOf(principal), page);
  }

  async close(principal: Principal, chatId: string): Promise<Chat> {
    return this.change(principal, chatId, (row) => this.statusChange(row, ChatStatus.CLOSED));
  }

  async reopen(principal: Principal, chatId: string): Promise<Chat> {
    return this.change(principal, chatId, (row) => this.statusChange(row, ChatStatus.OPEN));
  }

  /**
   * The operator must be a member of the org now: an unknown id, another org's member or a removed member is
   * NOT_FOUND naming `operatorId`, and nothing changes. The chat is found first (its NOT_FOUND wins), then identity
   * is asked, before the transaction and never across it.
   */
  async assign(principal: Principal, chatId: string, operatorId: string): Promise<Chat> {
    requireScope(principal, ApiScope.CONVERSATIONS_MANAGE);
    const orgId = requireOrg(principal);
    requireId(operatorId, 'operatorId');
    await findChat(this.dataSource.manager, orgId, chatId);
    await requireMember(this.members, orgId, operatorId);
    return this.change(principal, chatId, (row) => {
      if (row.assigneeId === operatorId) return undefined;
      row.assigneeId = operatorId;
      return { changes: { assigneeId: operatorId }, event: 'chat.assigned' };
    });
  }

  async unassign(principal: Principal, chatId: string): Promise<Chat> {
    return this.change(principal, chatId, (row) => {
      if (row.assigneeId === null) return undefined;
      row.assigneeId = null;
      return { changes: { assigneeId: null }, event: 'chat.unassigned' };
    });
  }

  /**
   * Sets one typed chat field; the value is validated for the field (a collection, or labels, must be the org's).
   * LABELS replaces the thread's whole set of labels.
   */
  async updateField(principal: Principal, chatId: string, field: ChatField, valueJson: string): Promise<Chat> {
    requireScope(principal, ApiScope.CONVERSATIONS_MANAGE); // before the value is parsed, as in every other refusal
    const change = parseChatFieldChange(field, valueJson);
    if (change.field === ChatField.STATUS) {
      const status = change.value;
      return this.change(principal, chatId, (row) => this.statusChange(row, status));
    }
    return this.change(principal, chatId, async (row, manager) => {
      switch (change.field) {
        case ChatField.PRIORITY:
          if (row.priority === change.value) return undefined;
          row.priority = change.value;
          return { changes: { priority: change.value }, event: 'chat.updated' };
        case ChatField.CATEGORY:
          if (row.category === change.value) return undefined;
          row.category = change.value;
          return { changes: { category: change.value }, event: 'chat.updated' };
        case ChatField.SUBJECT:
          if (row.subject === change.value) return undefined;
          row.subject = change.value;
          return { changes: { subject: change.value }, event: 'chat.updated' };
        case ChatField.COLLECTION:
          if (change.value !== null) await findCollection(manager, row.orgId, change.value, 'input.value');
          if (row.collectionId === change.value) return undefined;
          row.collectionId = change.value;
          return { changes: { collectionId: change.value }, event: 'chat.updated' };
        case ChatField.LABELS:
          return labelsChange(await replaceChatLabels(manager, row, change.value, 'input.value'));
      }
    });
  }

  /** Adds one label to the thread (SYSTEM callers: a flow's "add a label" step); adding it again changes nothing. */
  async addLabel(principal: Principal, chatId: string, labelId: string): Promise<Chat> {
    requireSystem(principal);
    requireId(labelId, 'labelId');
    return this.change(principal, chatId, async (row, manager) =>
      labelsChange(await addChatLabel(manager, row, labelId, 'labelId')),
    );
  }

  /**
   * Finds the contact's open chat on the channel or opens a new one (SYSTEM callers: widget-api, channels, seed). A
   * contact the inbox erased is NOT_FOUND naming `contact._id` (decision 0169).
   */
  async open(principal: Principal, channelId: string, contact: ChatContact, channelType?: string): Promise<Chat> {
    requireSystem(principal);
    const orgId = requireOrg(principal);
    requireId(channelId, 'channelId');
    requireId(contact._id, 'contact._id');
    const type = chatChannelType(channelType);
    const chat = await this.dataSource.transaction(async (manager) => {
      // An erased contact is given nothing again (a late handshake, a platform message in flight; decision 0169).
      await requireNotErased(manager, orgId, contact._id, 'contact._id');
      const events: NewEvent[] = [];
      const at = now();
      const conversation = await conversationFor(manager, orgId, contact, at, events);
      const found = await manager.find(ChatRow, {
        where: { orgId, channelId, contactId: contact._id },
        order: { createdAt: 'DESC', id: 'DESC' },
        take: 1,
      });
      const latest = found[0];
      // A blocked contact is not given a fresh thread: new messages land in the latest one, which stays closed.
      if (latest && (latest.status === ChatStatus.OPEN || conversation.blocked)) {
        await enqueueEvents(manager, events, at);
        return latest;
      }
      const row = manager.create(ChatRow, {
        id: newId(at),
        orgId,
        channelId,
        channelType: type,
        conversationId: conversation.id,
        contactId: contact._id,
        contactName: contact.name ?? null,
        contactEmail: contact.email ?? null,
        contactPhone: contact.phone ?? null,
        status: ChatStatus.OPEN,
        createdAt: at,
        updatedAt: at,
        lastMessageAt: null,
        closedAt: null,
        assigneeId: null,
        priority: ChatPriority.NORMAL,
        category: null,
        subject: null,
        collectionId: null,
        visitorSeq: 0,
        visitorReadAt: null,
        visitorReadId: null,
      });
      await manager.insert(ChatRow, row);
      events.push(chatEvent('chat.opened', row));
      await enqueueEvents(manager, events, at);
      return row;
    });
    this.relay().nudge();
    return chatViewOf(this.dataSource.manager, undefined, chat);
  }

  private statusChange(row: ChatRow, status: ChatStatus.OPEN | ChatStatus.CLOSED): ChatChange | undefined {
    if (row.status === status) return undefined;
    row.status = status;
    row.closedAt = status === ChatStatus.CLOSED ? now() : null;
    return {
      changes: { status, closedAt: row.closedAt },
      event: status === ChatStatus.CLOSED ? 'chat.closed' : 'chat.reopened',
    };
  }

  /**
   * One CONVERSATIONS_MANAGE change of a chat in a transaction with its event. `decide` mutates the row and returns
   * the columns to write, or undefined when the chat already is as asked (idempotent: nothing written or emitted).
   */
  private async change(
    principal: Principal,
    chatId: string,
    decide: (row: ChatRow, manager: EntityManager) => ChatChange | undefined | Promise<ChatChange | undefined>,
  ): Promise<Chat> {
    requireScope(principal, ApiScope.CONVERSATIONS_MANAGE);
    const orgId = requireOrg(principal);
    const chat = await this.dataSource.transaction(async (manager) => {
      // Locked first: two concurrent closes see each other, so the visitor gets one chat.closed, not two.
      const row = await lockChat(manager, orgId, chatId);
      const change = await decide(row, manager);
      if (!change) return row;
      const at = now();
      row.updatedAt = at;
      await manager.update(ChatRow, { id: row.id, orgId }, { ...change.changes, updatedAt: at });
      const visitorSeq =
        change.event === 'chat.closed' || change.event === 'chat.reopened'
          ? await recordVisitorEvent(manager, row, change.event, null, at)
          : 0;
      await enqueueEvents(manager, [chatEvent(change.event, row, undefined, change.labelIds, visitorSeq)], at);
      return row;
    });
    this.relay().nudge();
    return chatViewOf(this.dataSource.manager, readerOf(principal), chat);
  }
}

interface ChatChange {
  changes: Partial<
    Pick<ChatRow, 'status' | 'closedAt' | 'assigneeId' | 'priority' | 'category' | 'subject' | 'collectionId'>
  >;
  event: 'chat.closed' | 'chat.reopened' | 'chat.assigned' | 'chat.unassigned' | 'chat.updated' | 'chat.labels_set';
  /** `chat.labels_set`: the thread's labels after the change. */
  labelIds?: string[];
}

/** The labels live in their own table: the chat row only gets its `updatedAt`. */
function labelsChange(labelIds: string[] | undefined): ChatChange | undefined {
  return labelIds && { changes: {}, event: 'chat.labels_set', labelIds };
}
