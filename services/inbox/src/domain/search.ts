import { In, type DataSource, type SelectQueryBuilder } from 'typeorm';
import {
  hasScope,
  keysetPage,
  requireOrg,
  requireScope,
  ResponseFields,
  searchWords,
  type PageRequest,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import type { MessagePage, SearchFilter } from '@svc/proto/inbox/v1';
import type { SearchConversationsResult } from '@svc/proto/inbox/v1/search';
import { ConversationRow, MessageRow, MessageTermRow } from '../entities';
import { readerOf } from './actor';
import { conversationPage } from './conversation-views';
import { findChat } from './lookups';
import type { MessageReader } from './message-details';
import { applyFilter, validFilter } from './search-filters';
import { termMatch } from './search-match';

/**
 * Message text search over the term table `message_terms` (docs/decisions/0054-message-term-table.md), newest first
 * with stable keyset cursors (creation time, id: a conversation's last activity moves, so it cannot order pages that
 * must not skip or repeat). Internal notes never match without NOTES_WRITE.
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
    const valid = validFilter(filter);
    const words = text?.trim() ? searchWords(text.trim()) : undefined;
    if (words && !Object.keys(valid).length) return this.conversationsByTerms(principal, orgId, words, page);
    const query = this.dataSource
      .getRepository(ConversationRow)
      .createQueryBuilder('cv')
      .where('cv.orgId = :orgId', { orgId });
    applyFilter(query, 'conversation', valid, includeNotes);
    if (words) this.matchConversation(query, words, includeNotes);
    // totalCount comes with the first page in the same statement: each pass reads every matching term row.
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

  /**
   * Without a filter, the page of conversations comes from the term range alone: its rows carry their conversation's
   * id and creation time, so grouping them orders, pages and counts (`COUNT(*) OVER ()` of the groups) without looking
   * up every matching conversation (decision 0055). The same cursors as the filtered path: (creation time, id). The
   * primary key's other columns are aggregated so that TypeORM builds one entity per group.
   */
  private async conversationsByTerms(
    principal: Principal,
    orgId: string,
    words: string[],
    page: PageRequest,
  ): Promise<SearchConversationsResult> {
    const match = termMatch('st', words, hasScope(principal, ApiScope.NOTES_WRITE));
    const query = this.dataSource
      .getRepository(MessageTermRow)
      .createQueryBuilder('st')
      .select(['st.orgId', 'st.conversationId', 'st.conversationCreatedAt'])
      .addSelect('MIN(st.term)', 'st_term')
      .addSelect('MIN(st.created_at)', 'st_created_at')
      .addSelect('MIN(st.message_id)', 'st_message_id')
      .where('st.orgId = :orgId', { orgId })
      .andWhere('st.conversationId IS NOT NULL')
      .andWhere(match.sql, match.parameters)
      .groupBy('st.orgId')
      .addGroupBy('st.conversationCreatedAt')
      .addGroupBy('st.conversationId');
    const { totalCount, ...groups } = await keysetPage(
      query,
      { at: 'st.conversationCreatedAt', id: 'st.conversationId' },
      (row) => ({ at: row.conversationCreatedAt ?? new Date(0), id: row.conversationId ?? '' }),
      page,
      'descending',
      { countAll: true },
    );
    const ids = groups.data.flatMap((row) => row.conversationId ?? []);
    const loaded = ids.length ? await this.dataSource.manager.findBy(ConversationRow, { orgId, id: In(ids) }) : [];
    const byId = new Map(loaded.map((row) => [row.id, row]));
    const rows = { ...groups, data: ids.flatMap((id) => byId.get(id) ?? []) };
    const result = await conversationPage(this.dataSource.manager, orgId, readerOf(principal), rows);
    return { ...result, totalCount };
  }

  /** Messages of the whole org containing every word of `query`. */
  async messages(
    principal: Principal,
    text: string,
    filter: SearchFilter | undefined,
    page: PageRequest,
    fields = ResponseFields.ALL,
  ): Promise<MessagePage> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const query = this.termQuery(principal, orgId, text);
    applyFilter(query, 'message', validFilter(filter), hasScope(principal, ApiScope.NOTES_WRITE));
    return this.termPage(orgId, query, page, fields);
  }

  /** Messages of one chat containing every word of `query`. */
  async chatMessages(
    principal: Principal,
    chatId: string,
    text: string,
    page: PageRequest,
    fields = ResponseFields.ALL,
  ): Promise<MessagePage> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const chat = await findChat(this.dataSource.manager, orgId, chatId);
    const query = this.termQuery(principal, orgId, text).andWhere('t.chatId = :chatId', { chatId: chat.id });
    return this.termPage(orgId, query, page, fields);
  }

  /**
   * With a filter: the matching conversation ids come from a term range of the term table's primary key (no message
   * row is read), and each is looked up in `conversations` for the filter, the order and the count. Matching the contact's fields too was dropped (decision 0030); finding a person by
   * name, email or phone is `searchChats` (PII_READ).
   */
  private matchConversation(query: SelectQueryBuilder<ConversationRow>, words: string[], includeNotes: boolean): void {
    const match = termMatch('st', words, includeNotes);
    query.andWhere(`cv.id IN (SELECT st.conversation_id FROM message_terms st WHERE ${match.sql})`, match.parameters);
  }

  /**
   * The page is read from the term table alone (ordered by its primary key's creation time, filtered on its columns),
   * then only that page's messages are loaded: a search never reads every matching message.
   */
  private async termPage(
    orgId: string,
    query: SelectQueryBuilder<MessageTermRow>,
    page: PageRequest,
    fields: ResponseFields,
  ): Promise<MessagePage> {
    const terms = await keysetPage(
      query,
      { at: 't.createdAt', id: 't.messageId' },
      (row) => ({ at: row.createdAt, id: row.messageId }),
      page,
      'descending',
    );
    const ids = terms.data.map((row) => row.messageId);
    const loaded = ids.length ? await this.dataSource.manager.findBy(MessageRow, { orgId, id: In(ids) }) : [];
    const byId = new Map(loaded.map((row) => [row.id, row]));
    const data = ids.flatMap((id) => byId.get(id) ?? []);
    return this.reader.page(this.dataSource.manager, orgId, { ...terms, data }, fields);
  }

  /**
   * The org's messages holding every word, one row each: grouped by message, since a prefix can match several of its
   * terms. Grouping the range's rows in memory costs far less than asking, row by row, whether the message has a
   * smaller matching term (a random index read per row). The primary key's columns are selected so that TypeORM
   * builds entities; the term is the smallest that matched.
   */
  private termQuery(principal: Principal, orgId: string, text: string): SelectQueryBuilder<MessageTermRow> {
    const match = termMatch('t', searchWords(text), hasScope(principal, ApiScope.NOTES_WRITE));
    return this.dataSource
      .getRepository(MessageTermRow)
      .createQueryBuilder('t')
      .select(['t.orgId', 't.createdAt', 't.messageId'])
      .addSelect('MIN(t.term)', 't_term')
      .where('t.orgId = :orgId', { orgId })
      .andWhere(match.sql, match.parameters)
      .groupBy('t.orgId')
      .addGroupBy('t.createdAt')
      .addGroupBy('t.messageId');
  }
}
