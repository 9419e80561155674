import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { InvalidArgument } from '@svc/kit';
import { ChatStatus, type SearchFilter } from '@svc/proto/inbox/v1';
import { requireId } from './lookups';

/**
 * What the searched rows are: the filters reach the thread and the labelled messages differently for each. A
 * `message` is a `message_terms` row (properties `messageId`, `chatId`, `createdAt`): message search reads no message
 * row to filter.
 */
export type SearchSubject = 'chat' | 'conversation' | 'message';

export interface ValidFilter {
  status?: ChatStatus;
  assigneeId?: string;
  labelId?: string;
  channelId?: string;
  from?: Date;
  to?: Date;
}

function validDate(value: string | undefined, field: string): Date | undefined {
  if (!value) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new InvalidArgument(`${field} must be an ISO 8601 date-time`, { field });
  return at;
}

/** Checks the ids' form and the dates; an id that names nothing simply matches nothing. */
export function validFilter(filter: SearchFilter | undefined): ValidFilter {
  const valid: ValidFilter = {};
  if (!filter) return valid;
  if (filter.status && filter.status !== ChatStatus.CHAT_STATUS_UNSPECIFIED) {
    if (filter.status !== ChatStatus.OPEN && filter.status !== ChatStatus.CLOSED)
      throw new InvalidArgument('status must be OPEN or CLOSED', { field: 'status' });
    valid.status = filter.status;
  }
  if (filter.assigneeId) valid.assigneeId = requireId(filter.assigneeId, 'assigneeId');
  if (filter.labelId) valid.labelId = requireId(filter.labelId, 'labelId');
  if (filter.channelId) valid.channelId = requireId(filter.channelId, 'channelId');
  const from = validDate(filter.from, 'from');
  const to = validDate(filter.to, 'to');
  if (from && to && from >= to) throw new InvalidArgument('from must be before to', { field: 'from' });
  if (from) valid.from = from;
  if (to) valid.to = to;
  return valid;
}

/** Thread conditions on alias `t` (a chat row), with their parameters. */
function threadConditions(filter: ValidFilter, t: string): { sql: string[]; parameters: ObjectLiteral } {
  const sql: string[] = [];
  const parameters: ObjectLiteral = {};
  if (filter.status) {
    sql.push(`${t}.status = :filterStatus`);
    parameters.filterStatus = filter.status;
  }
  if (filter.assigneeId) {
    sql.push(`${t}.assignee_id = :filterAssignee`);
    parameters.filterAssignee = filter.assigneeId;
  }
  if (filter.channelId) {
    sql.push(`${t}.channel_id = :filterChannel`);
    parameters.filterChannel = filter.channelId;
  }
  return { sql, parameters };
}

/**
 * Adds the filter to a query over chats (alias `c`), conversations (`cv`) or message terms (`t`), already scoped to
 * `:orgId`. A conversation matches when one of its threads meets every thread condition. A label matches a thread
 * that carries it or has a message carrying it that the caller may see (`includeNotes` false: not an internal note);
 * a conversation through one of its threads; a message that carries it or whose thread does.
 */
export function applyFilter<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  subject: SearchSubject,
  filter: ValidFilter,
  includeNotes: boolean,
): void {
  const alias = query.alias;
  const threads = threadConditions(filter, subject === 'chat' ? alias : 'ft');
  if (threads.sql.length) {
    if (subject === 'chat') query.andWhere(threads.sql.join(' AND '), threads.parameters);
    else {
      const link = subject === 'conversation' ? `ft.conversation_id = ${alias}.id` : `ft.id = ${alias}.chatId`;
      query.andWhere(
        `EXISTS (SELECT 1 FROM chats ft WHERE ft.org_id = :orgId AND ${link} AND ${threads.sql.join(' AND ')})`,
        threads.parameters,
      );
    }
  }
  if (filter.labelId) {
    const messageLink = {
      chat: `fm.chat_id = ${alias}.id`,
      conversation: `fm.conversation_id = ${alias}.id`,
      message: `fm.id = ${alias}.messageId`,
    }[subject];
    const visible = includeNotes ? '' : ' AND fm.internal = :filterInternal';
    const labelledMessage =
      `EXISTS (SELECT 1 FROM message_labels fl INNER JOIN messages fm ON fm.id = fl.message_id` +
      ` WHERE fl.org_id = :orgId AND fl.label_id = :filterLabel AND ${messageLink}${visible})`;
    const threadLink = {
      chat: `fcl.chat_id = ${alias}.id`,
      conversation: `fc.conversation_id = ${alias}.id`,
      message: `fcl.chat_id = ${alias}.chatId`,
    }[subject];
    const threadJoin = subject === 'conversation' ? ' INNER JOIN chats fc ON fc.id = fcl.chat_id' : '';
    const labelledThread =
      `EXISTS (SELECT 1 FROM chat_labels fcl${threadJoin}` +
      ` WHERE fcl.org_id = :orgId AND fcl.label_id = :filterLabel AND ${threadLink})`;
    query.andWhere(`(${labelledThread} OR ${labelledMessage})`, {
      filterLabel: filter.labelId,
      filterInternal: false,
    });
  }
  const at = subject === 'message' ? `${alias}.createdAt` : `${alias}.lastMessageAt`;
  if (filter.from) query.andWhere(`${at} >= :filterFrom`, { filterFrom: filter.from });
  if (filter.to) query.andWhere(`${at} < :filterTo`, { filterTo: filter.to });
}
