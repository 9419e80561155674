// Written by hand, not generated: a data migration (docs/decisions/0054-message-term-table.md). It runs after the
// generated migration that creates `message_terms`, fills it from the messages already stored, and drops the FTS5
// table and triggers of MessageFullText1795400000000 that search no longer reads (they are not entities, so the
// generator never sees them).
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillMessageTerms } from '../backfill-message-terms';
import { MessageFullText1795400000000 } from './1795400000000-MessageFullText';

export class MessageTermsBackfill1795600000000 implements MigrationInterface {
  name = 'MessageTermsBackfill1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await backfillMessageTerms(queryRunner);
    await new MessageFullText1795400000000().down(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await new MessageFullText1795400000000().up(queryRunner);
    await queryRunner.query('DELETE FROM message_terms');
  }
}
