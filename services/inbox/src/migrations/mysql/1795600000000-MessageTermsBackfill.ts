// Written by hand, not generated: a data migration (docs/decisions/0054-message-term-table.md). It runs after the
// generated migration that creates `message_terms` (and drops the FULLTEXT index search no longer reads), and fills
// the table from the messages already stored, in this migration's transaction.
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillMessageTerms } from '../backfill-message-terms';

export class MessageTermsBackfill1795600000000 implements MigrationInterface {
  name = 'MessageTermsBackfill1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await backfillMessageTerms(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM message_terms');
  }
}
