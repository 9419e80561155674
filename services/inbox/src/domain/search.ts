import type { DataSource, SelectQueryBuilder } from 'typeorm';
import { hasScope, keysetPage, requireOrg, requireScope, type PageRequest, type Principal } from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import type { MessagePage, SearchFilter } from '@svc/proto/inbox/v1';
import type { SearchConversationsResult } from '@svc/proto/inbox/v1/search';
import { ConversationRow, MessageRow } from '../entities';
import { readerOf } from './actor';
import { conversationPage } from './conversation-views';
import { findChat } from './lookups';
import type { MessageReader } from './message-details';
import { applyFilter, validFilter } from './search-filters';
import { fullTextCondition, fullTextDialectOf, searchWords } from './search-terms';

/**
 * Full-text search, newest first with stable keyset cursors (creation time, id: a conversation's last activity moves,
 * so it cannot order pages that must not skip or repeat). Internal notes never match without NOTES_WRITE.
 */
export class Search {
  constructor(
    private readonly dataSource: DataSource,
    private readonly reader: MessageReader,
  ) {}

  /** Conversations with a visible message containing every word of `query`; no query: all the filter lets through. */
  async conversations(
    principal: Principal,
    text: string | undefined,
    filter: SearchFilter | undefined,
    page: PageRequest,
  ): Promise<SearchConversationsResult> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const includeNotes = hasScope(principal, ApiScope.NOTES_WRITE);
    const query = this.dataSource
      .getRepository(ConversationRow)
      .createQueryBuilder('cv')
      .where('cv.orgId = :orgId', { orgId });
    applyFilter(query, 'conversation', validFilter(filter), includeNotes);
    if (text?.trim()) this.matchConversation(query, text.trim(), includeNotes);
    // totalCount comes with the first page in the same statement: each pass reads every matching message.
    const { totalCount, ...rows } = await keysetPage(
      query,
      { at: 'cv.createdAt', id: 'cv.id' },
      (row) => ({ at: row.createdAt, id: row.id }),
      page,
      'descending',
      { countAll: true },
    );
    const result = await conversationPage(this.dataSource.manager, orgId, readerOf(principal), rows);
    return { ...result, totalCount };
  }

  /** Messages of the whole org containing every word of `query`. */
  async messages(
    principal: Principal,
    text: string,
    filter: SearchFilter | undefined,
    page: PageRequest,
  ): Promise<MessagePage> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const query = this.messageQuery(principal, orgId, text);
    applyFilter(query, 'message', validFilter(filter), hasScope(principal, ApiScope.NOTES_WRITE));
    return this.messagePage(orgId, query, page);
  }

  /** Messages of one chat containing every word of `query`. */
  async chatMessages(principal: Principal, chatId: string, text: string, page: PageRequest): Promise<MessagePage> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const chat = await findChat(this.dataSource.manager, orgId, chatId);
    const query = this.messageQuery(principal, orgId, text).andWhere('m.chatId = :chatId', { chatId: chat.id });
    return this.messagePage(orgId, query, page);
  }

  /**
   * Message text only. Matching the contact's fields too (an OR with a LIKE) stops MariaDB from running the EXISTS as
   * a semi-join over the FULLTEXT index: 10× slower at 100k conversations (docs/performance.md). Finding a person by
   * name, email or phone is `searchChats` (PII_READ).
   */
  private matchConversation(query: SelectQueryBuilder<ConversationRow>, text: string, includeNotes: boolean): void {
    const match = fullTextCondition(fullTextDialectOf(this.dataSource), 'sm', searchWords(text));
    const visible = includeNotes ? '' : ' AND sm.internal = :matchInternal';
    query.andWhere(
      `EXISTS (SELECT 1 FROM messages sm WHERE sm.org_id = :orgId AND sm.conversation_id = cv.id` +
        ` AND sm.deleted_at IS NULL${visible} AND ${match.sql})`,
      { ...match.parameters, matchInternal: false },
    );
  }

  private messageQuery(principal: Principal, orgId: string, text: string): SelectQueryBuilder<MessageRow> {
    const match = fullTextCondition(fullTextDialectOf(this.dataSource), 'm', searchWords(text));
    const query = this.dataSource
      .getRepository(MessageRow)
      .createQueryBuilder('m')
      .where('m.orgId = :orgId', { orgId })
      .andWhere('m.deletedAt IS NULL')
      .andWhere(match.sql, match.parameters);
    if (!hasScope(principal, ApiScope.NOTES_WRITE)) query.andWhere('m.internal = :internal', { internal: false });
    return query;
  }

  private async messagePage(orgId: string, query: SelectQueryBuilder<MessageRow>, page: PageRequest) {
    const rows = await keysetPage(
      query,
      { at: 'm.createdAt', id: 'm.id' },
      (row) => ({ at: row.createdAt, id: row.id }),
      page,
      'descending',
    );
    return this.reader.page(this.dataSource.manager, orgId, rows);
  }
}
