import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, EnumColumn, IdColumn, LongTextColumn, RefColumn, TextColumn } from '@svc/kit';

/** The kinds of value a people field holds (docs/decisions/0150). */
export const PEOPLE_FIELD_TYPES = [
  'TEXT',
  'NUMBER',
  'BOOLEAN',
  'DATE',
  'SELECT',
  'MULTI_SELECT',
  'URL',
  'EMAIL',
  'PHONE',
] as const;
export type PeopleFieldType = (typeof PEOPLE_FIELD_TYPES)[number];

/** A typed field an org defines for its contacts; `key` is the stable name values are written and read by. */
@Entity('people_field_definitions')
@Index('ux_people_fields_org_key', ['orgId', 'key'], { unique: true })
export class PeopleFieldDefinitionRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  /** `^[a-z][a-z0-9_]{0,63}$`, never changes. */
  @TextColumn(64) key!: string;
  @TextColumn(200) label!: string;
  @EnumColumn(PEOPLE_FIELD_TYPES) type!: PeopleFieldType;
  /** SELECT and MULTI_SELECT: the allowed values, a JSON array of strings as text; `[]` for other types. */
  @LongTextColumn() options!: string;
  @BoolColumn() required!: boolean;
  @BoolColumn() unique!: boolean;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}

/**
 * One contact's value of one people field: personal data (masked without PII_READ). `value` is the canonical value
 * as JSON text; `uniqueKey` is a digest of it when the definition is unique (NULL otherwise), so the database refuses
 * a second contact with the same value even under concurrent writes.
 */
@Entity('people_field_values')
@Index('ux_people_field_values_contact', ['orgId', 'contactId', 'definitionId'], { unique: true })
@Index('ux_people_field_values_unique', ['orgId', 'definitionId', 'uniqueKey'], { unique: true })
export class PeopleFieldValueRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'contact_id' }) contactId!: string;
  @RefColumn({ name: 'definition_id' }) definitionId!: string;
  @LongTextColumn() value!: string;
  @TextColumn(64, { name: 'unique_key', nullable: true }) uniqueKey!: string | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}
