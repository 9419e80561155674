import type { DataSource, EntityManager } from 'typeorm';
import {
  InvalidArgument,
  NotFound,
  enqueueEvents,
  isId,
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
import { ApiScope } from '@svc/proto/common/v1';
import { ChatStatus, type ChatContact } from '@svc/proto/inbox/v1';
import { ChatRow } from '../entities';
import { chatEvent } from './events';

export interface ChatSearch {
  query?: string | undefined;
  status?: ChatStatus | undefined;
  page: PageRequest;
}

/** Reads a chat of the caller's org or fails with NOT_FOUND (also for another org's chat: no existence oracle). */
export async function findChat(manager: EntityManager, orgId: string, chatId: string): Promise<ChatRow> {
  if (!isId(chatId)) throw new InvalidArgument('chatId must be a 24-character hex id', { field: 'chatId' });
  const chat = await manager.findOneBy(ChatRow, { id: chatId, orgId });
  if (!chat) throw new NotFound('chat not found', { field: 'chatId' });
  return chat;
}

export class Chats {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
  ) {}

  async get(principal: Principal, chatId: string): Promise<ChatRow> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    return findChat(this.dataSource.manager, requireOrg(principal), chatId);
  }

  /** Newest chats first; `query` matches the contact's name, email or phone, so it needs PII_READ. */
  async search(principal: Principal, search: ChatSearch): Promise<Page<ChatRow>> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const query = this.dataSource.getRepository(ChatRow).createQueryBuilder('c').where('c.orgId = :orgId', { orgId });
    if (search.status && search.status !== ChatStatus.CHAT_STATUS_UNSPECIFIED)
      query.andWhere('c.status = :status', { status: search.status });
    const text = search.query?.trim();
    if (text) {
      requireScope(principal, ApiScope.PII_READ);
      // `!` as the LIKE escape character: a backslash means different things in MySQL and SQLite string literals.
      const like = `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
      query.andWhere(
        "(LOWER(c.contactName) LIKE :like ESCAPE '!' OR LOWER(c.contactEmail) LIKE :like ESCAPE '!' OR c.contactPhone LIKE :like ESCAPE '!')",
        { like },
      );
    }
    return keysetPage(
      query,
      { at: 'c.createdAt', id: 'c.id' },
      (row) => ({ at: row.createdAt, id: row.id }),
      search.page,
      'descending',
    );
  }

  close(principal: Principal, chatId: string): Promise<ChatRow> {
    return this.setStatus(principal, chatId, ChatStatus.CLOSED);
  }

  reopen(principal: Principal, chatId: string): Promise<ChatRow> {
    return this.setStatus(principal, chatId, ChatStatus.OPEN);
  }

  /** Finds the contact's open chat on the channel or opens a new one (SYSTEM callers: widget-api, channels, seed). */
  async open(principal: Principal, channelId: string, contact: ChatContact): Promise<ChatRow> {
    requireSystem(principal);
    const orgId = requireOrg(principal);
    if (!isId(channelId)) throw new InvalidArgument('channelId must be a 24-character hex id', { field: 'channelId' });
    if (!isId(contact._id))
      throw new InvalidArgument('contact._id must be a 24-character hex id', { field: 'contact._id' });
    const chat = await this.dataSource.transaction(async (manager) => {
      const existing = await manager.findOneBy(ChatRow, {
        orgId,
        channelId,
        contactId: contact._id,
        status: ChatStatus.OPEN,
      });
      if (existing) return existing;
      const at = now();
      const row = manager.create(ChatRow, {
        id: newId(at),
        orgId,
        channelId,
        contactId: contact._id,
        contactName: contact.name ?? null,
        contactEmail: contact.email ?? null,
        contactPhone: contact.phone ?? null,
        status: ChatStatus.OPEN,
        createdAt: at,
        updatedAt: at,
        lastMessageAt: null,
        closedAt: null,
      });
      await manager.insert(ChatRow, row);
      await enqueueEvents(manager, [chatEvent('chat.opened', row)], at);
      return row;
    });
    this.relay().nudge();
    return chat;
  }

  /** Idempotent: setting the status a chat already has changes nothing and emits nothing. */
  private async setStatus(
    principal: Principal,
    chatId: string,
    status: ChatStatus.OPEN | ChatStatus.CLOSED,
  ): Promise<ChatRow> {
    requireScope(principal, ApiScope.CONVERSATIONS_MANAGE);
    const orgId = requireOrg(principal);
    const chat = await this.dataSource.transaction(async (manager) => {
      const row = await findChat(manager, orgId, chatId);
      if (row.status === status) return row;
      const at = now();
      row.status = status;
      row.updatedAt = at;
      row.closedAt = status === ChatStatus.CLOSED ? at : null;
      await manager.update(ChatRow, { id: row.id }, { status, updatedAt: at, closedAt: row.closedAt });
      await enqueueEvents(
        manager,
        [chatEvent(status === ChatStatus.CLOSED ? 'chat.closed' : 'chat.reopened', row)],
        at,
      );
      return row;
    });
    this.relay().nudge();
    return chat;
  }
}
