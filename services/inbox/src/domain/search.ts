import type { DataSource, SelectQueryBuilder } from 'typeorm';
import { hasScope, keysetPage, requireOrg, requireScope, type PageRequest, type Principal } from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import type { MessagePage, SearchFilter } from '@svc/proto/inbox/v1';
import type { SearchConversationsResult } from '@svc/proto/inbox/v1/search';
import { ConversationRow, MessageRow } from '../entities';
import { readerOf } from './actor';
import { conversationPage } from './conversation-views';
import { findChat } from './lookups';
import { messagePage } from './message-details';
import { applyFilter, validFilter } from './search-filters';
import { containsPattern, fullTextCondition, fullTextDialectOf, searchWords } from './search-terms';

/**
 * Full-text search, newest first with stable keyset cursors (creation time, id: a conversation's last activity moves,
 * so it cannot order pages that must not skip or repeat). Internal notes never match without NOTES_WRITE.
 */
export class Search {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Conversations with a visible message containing every word of `query` (and, with PII_READ, also those whose
   * contact's name, email or phone contains it); no query: every conversation the filter lets through.
   */
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
    if (text?.trim()) this.matchConversation(query, principal, text.trim(), includeNotes);
    const totalCount = page.cursor ? undefined : await query.getCount();
    const rows = await keysetPage(
      query,
      { at: 'cv.createdAt', id: 'cv.id' },
      (row) => ({ at: row.createdAt, id: row.id }),
      page,
      'descending',
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

  private matchConversation(
    query: SelectQueryBuilder<ConversationRow>,
    principal: Principal,
    text: string,
    includeNotes: boolean,
  ): void {
    const words = searchWords(text);
    const match = fullTextCondition(fullTextDialectOf(this.dataSource), 'sm', words);
    const visible = includeNotes ? '' : ' AND sm.internal = :matchInternal';
    const inMessages =
      `EXISTS (SELECT 1 FROM messages sm WHERE sm.org_id = :orgId AND sm.conversation_id = cv.id` +
      ` AND sm.deleted_at IS NULL${visible} AND ${match.sql})`;
    // Matching the contact's fields would reveal them to a caller who may not read them.
    if (!hasScope(principal, ApiScope.PII_READ)) {
      query.andWhere(inMessages, { ...match.parameters, matchInternal: false });
      return;
    }
    const like = containsPattern(text);
    query.andWhere(
      `(${inMessages} OR LOWER(cv.contactName) LIKE :like ESCAPE '!' OR LOWER(cv.contactEmail) LIKE :like ESCAPE '!'` +
        ` OR cv.contactPhone LIKE :like ESCAPE '!')`,
      { ...match.parameters, matchInternal: false, like },
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
    return messagePage(this.dataSource.manager, orgId, rows);
  }
}
