import { Entity, Index } from 'typeorm';
import { DateTimeColumn, IdColumn, LongTextColumn, RefColumn, TextColumn } from '@svc/kit';

/** A person of an org. Name, email, phone and custom attributes are personal data (masked without PII_READ). */
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
  /** A JSON object as text (portable across both database families; never queried inside). */
  @LongTextColumn({ name: 'custom_attributes' }) customAttributes!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}
