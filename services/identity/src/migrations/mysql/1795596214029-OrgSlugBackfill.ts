// Written by hand, not generated: a data migration (docs/decisions/0184). It adds `orgs.slug` as a nullable column
// and fills it for the orgs already stored, then makes it required and unique (the SQLite family's generated migration after
// its own copy of this one does that part there).
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillOrgSlugs } from '../backfill-org-slugs';

export class OrgSlugBackfill1795596214029 implements MigrationInterface {
  name = 'OrgSlugBackfill1795596214029';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `orgs` ADD `slug` varchar(63) NULL');
    await backfillOrgSlugs(queryRunner);
    // Required and unique from here on. Written here rather than generated: TypeORM's diff of this change on the MySQL
    // family adds an unnamed unique index beside ux_orgs_slug, which its next diff then wants dropped.
    await queryRunner.query('ALTER TABLE `orgs` MODIFY `slug` varchar(63) COLLATE utf8mb4_bin NOT NULL');
    await queryRunner.query('CREATE UNIQUE INDEX `ux_orgs_slug` ON `orgs` (`slug`)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX `ux_orgs_slug` ON `orgs`');
    await queryRunner.query('ALTER TABLE `orgs` DROP COLUMN `slug`');
  }
}
