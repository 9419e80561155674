// Written by hand, not generated: TypeORM cannot emit FULLTEXT DDL from the entities, so the entity declares the
// index with `synchronize: false` and this migration creates it (docs/decisions/0030-inbox-search.md).
// Search queries it with MATCH(text) AGAINST(… IN BOOLEAN MODE).
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class MessageFullText1795400000000 implements MigrationInterface {
  name = 'MessageFullText1795400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `messages` ADD FULLTEXT INDEX `ft_messages_text` (`text`)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX `ft_messages_text` ON `messages`');
  }
}
