// Export only the migration class: index.ts takes every export as a migration.
// Written by hand, not generated: TypeORM cannot emit FTS5 DDL (docs/decisions/0030-inbox-search.md).
// `messages_fts` holds each message's text keyed by message id (not by rowid: a generated migration that rebuilds
// `messages` renumbers rowids). Triggers keep it in step with every write, whatever code path does it. A generated
// migration that rebuilds `messages` drops these triggers with the old table: it must re-run `up` below (the e2e
// search tests fail if it does not, since they search messages written after all migrations ran).
import type { MigrationInterface, QueryRunner } from 'typeorm';

const MESSAGES_FTS_TRIGGERS = [
  `CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages BEGIN
     INSERT INTO messages_fts (text, message_id) VALUES (new.text, new.id);
   END`,
  `CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE OF text ON messages BEGIN
     DELETE FROM messages_fts WHERE message_id = old.id;
     INSERT INTO messages_fts (text, message_id) VALUES (new.text, new.id);
   END`,
  `CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages BEGIN
     DELETE FROM messages_fts WHERE message_id = old.id;
   END`,
];

export class MessageFullText1795400000000 implements MigrationInterface {
  name = 'MessageFullText1795400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(text, message_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2')`,
    );
    await queryRunner.query('INSERT INTO messages_fts (text, message_id) SELECT text, id FROM messages');
    for (const trigger of MESSAGES_FTS_TRIGGERS) await queryRunner.query(trigger);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of ['messages_fts_insert', 'messages_fts_update', 'messages_fts_delete'])
      await queryRunner.query(`DROP TRIGGER IF EXISTS ${name}`);
    await queryRunner.query('DROP TABLE IF EXISTS messages_fts');
  }
}
