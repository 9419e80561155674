// Written by hand, not generated: a data migration (docs/decisions/0157). It runs after the generated migration that
// creates the people field tables and before the one that drops `contacts.custom_attributes`, and moves every
// contact's free-form attributes into people field definitions and values.
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { moveCustomAttributes } from '../custom-attributes-to-fields';

export class CustomAttributesToPeopleFields1795586519000 implements MigrationInterface {
  name = 'CustomAttributesToPeopleFields1795586519000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await moveCustomAttributes(queryRunner);
  }

  // The values stay behind: the column they came from is restored empty by the drop's own down().
  async down(): Promise<void> {}
}
