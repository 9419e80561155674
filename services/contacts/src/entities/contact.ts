import { Entity, Index } from 'typeorm';
import { DateTimeColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';

/**
 * A person of an org. Name, email and phone are personal data (masked without PII_READ); its custom attributes are its
 * people field values (`people_field_values`).
 */
@Entity('contacts')
@Index('ux_contacts_org_external', ['orgId', 'externalId'], { unique: true })
export class ContactRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @TextColumn(200, { nullable: true }) name!: string | null;
  /** Lower-cased. */
  @TextColumn(254, { nullable: true }) email!: string | null;
  /** E.164. */
  @TextColumn(16, { nullable: true }) phone!: string | null;
  @TextColumn(200, { name: 'external_id', nullable: true }) externalId!: string | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}
