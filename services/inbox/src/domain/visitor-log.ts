import type { EntityManager } from 'typeorm';
import { NotFound, entitySql, newId } from '@svc/kit';
import { ChatRow, VisitorEventRow, type MessageRow, type VisitorEventType } from '../entities';
import { findChat } from './lookups';

/**
 * Reads the chat and holds its row lock until the transaction ends: on MariaDB/MySQL `SELECT … FOR UPDATE` (the
 * first statement of the transaction, so later plain reads see what committed before the lock was granted); on
 * SQLite the data source's transactions already run one at a time (kit `serializeSqliteTransactions`). Every write of
 * a visitor-visible change takes this lock before numbering it, so sequence numbers follow commit order.
 */
export async function lockChat(manager: EntityManager, orgId: string, chatId: string): Promise<ChatRow> {
  if (manager.connection.options.type === 'better-sqlite3') return findChat(manager, orgId, chatId);
  const sql = entitySql(manager.connection, ChatRow);
  const [row] = await sql.select(manager, `WHERE ${sql.column('id')} = ? AND ${sql.column('orgId')} = ? FOR UPDATE`, [
    chatId,
    orgId,
  ]);
  return row ?? findChat(manager, orgId, chatId); // findChat answers NOT_FOUND (or BAD_USER_INPUT for a bad id)
}

/** Whether the visitor of the chat sees a message at all: internal notes never (docs/decisions/0080). */
export const visibleToVisitor = (message: Pick<MessageRow, 'internal'>) => !message.internal;

/**
 * Numbers one visitor-visible change of a chat in the transaction of the change and records it: the returned seq goes
 * into the change's outbox event (`visitor_seq`). Takes the chat's row lock if the caller does not hold it yet; callers
 * that also change existing messages of the chat take it first (`lockChat`): one lock order, chat then messages.
 */
export async function recordVisitorEvent(
  manager: EntityManager,
  chat: ChatRow,
  type: VisitorEventType,
  messageId: string | null,
  at: Date,
): Promise<number> {
  const sql = entitySql(manager.connection, ChatRow);
  const seqColumn = sql.column('visitorSeq');
  // The increment takes the row lock (MariaDB) and the read after it sees this transaction's own write: the number
  // is the latest committed one plus one, whatever this transaction read before.
  await manager.query(`UPDATE ${sql.table} SET ${seqColumn} = ${seqColumn} + 1 WHERE ${sql.column('id')} = ?`, [
    chat.id,
  ]);
  const [numbered] = await sql.selectColumns(manager, ['visitorSeq'], `WHERE ${sql.column('id')} = ?`, [chat.id]);
  if (!numbered) throw new NotFound('chat not found', { field: 'chatId' });
  chat.visitorSeq = numbered.visitorSeq;
  // Written from the metadata (kit entitySql): TypeORM's insert put the seq into the SQL text, so every event was a
  // statement SQLite had not seen, prepared anew and pushing the hot ones out of the driver's statement cache.
  await entitySql(manager.connection, VisitorEventRow).insert(manager, [
    { id: newId(at), orgId: chat.orgId, chatId: chat.id, seq: chat.visitorSeq, type, messageId, occurredAt: at },
  ]);
  return chat.visitorSeq;
}
