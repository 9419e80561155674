// Written by hand (not a migration: the migrations of each family call it). Fills `message_terms` from the messages
// written before the term table existed (docs/decisions/0054-message-term-table.md). Plain SQL on the query runner,
// never the entities, so that later entity changes cannot alter what this migration did; the tokeniser is the
// service's own (`termsOf`), so the backfilled rows are exactly those a write would have made.
import type { QueryRunner } from 'typeorm';
import { termsOf } from '@svc/kit';

const MESSAGES_PER_BATCH = 1_000;
/** Rows per INSERT: 8 values each, under SQLite's and MySQL's bound-parameter limits. */
const ROWS_PER_INSERT = 1_000;

interface MessageForTerms {
  id: string;
  org_id: string;
  chat_id: string;
  conversation_id: string | null;
  internal: unknown;
  created_at: unknown;
  text: string;
  conversation_created_at: unknown;
}

/**
 * Reads the visible (not soft-deleted) messages in id order, a batch at a time, and writes each one's term rows.
 * Values are copied as the driver read them, so creation times round-trip unchanged. `log` is told the progress after
 * each batch. Returns the number of messages read.
 */
export async function backfillMessageTerms(
  queryRunner: QueryRunner,
  log: (line: string) => void = (line) => console.log(line),
): Promise<number> {
  const [{ total }] = (await queryRunner.query(
    'SELECT COUNT(*) AS total FROM messages WHERE deleted_at IS NULL',
  )) as [{ total: number | string }];
  let after = '';
  let done = 0;
  for (;;) {
    const batch = (await queryRunner.query(
      'SELECT m.id, m.org_id, m.chat_id, m.conversation_id, m.internal, m.created_at, m.text,' +
        ' c.created_at AS conversation_created_at FROM messages m LEFT JOIN conversations c ON c.id = m.conversation_id' +
        ' WHERE m.deleted_at IS NULL AND m.id > ? ORDER BY m.id LIMIT ' +
        String(MESSAGES_PER_BATCH),
      [after],
    )) as MessageForTerms[];
    const last = batch[batch.length - 1];
    if (!last) break;
    const rows = batch.flatMap((m) =>
      termsOf(m.text ?? '').map((term) => [
        m.org_id,
        term,
        m.created_at,
        m.id,
        m.chat_id,
        m.conversation_id,
        m.internal,
        m.conversation_created_at,
      ]),
    );
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const chunk = rows.slice(start, start + ROWS_PER_INSERT);
      await queryRunner.query(
        'INSERT INTO message_terms' +
          ' (org_id, term, created_at, message_id, chat_id, conversation_id, internal, conversation_created_at) VALUES ' +
          chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', '),
        chunk.flat(),
      );
    }
    done += batch.length;
    after = last.id;
    log(`inbox: message_terms backfill: ${done}/${Number(total)} messages`);
  }
  return done;
}
