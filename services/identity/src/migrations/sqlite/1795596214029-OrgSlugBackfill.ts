// Written by hand, not generated: a data migration (docs/decisions/0184). It adds `orgs.slug` as a nullable column
// and fills it for the orgs already stored; the generated migration after it makes the column required and unique.
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillOrgSlugs } from '../backfill-org-slugs';

export class OrgSlugBackfill1795596214029 implements MigrationInterface {
  name = 'OrgSlugBackfill1795596214029';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orgs" ADD COLUMN "slug" varchar(63)`);
    await backfillOrgSlugs(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orgs" DROP COLUMN "slug"`);
  }
}
