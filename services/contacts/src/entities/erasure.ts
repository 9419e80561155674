import { Entity, Index, PrimaryColumn } from 'typeorm';
import { DateTimeColumn, IdColumn, LongTextColumn, RefColumn, TextColumn } from '@svc/kit';

/**
 * One requested erasure of a contact (docs/erasure.md): the receipt's head. At most one per contact, so asking again
 * answers the same receipt. Ids and times only: what was erased is gone, this row remains as the proof.
 */
@Entity('erasure_requests')
@Index('ux_erasure_requests_contact', ['orgId', 'contactId'], { unique: true })
export class ErasureRequestRow {
  /** The erasure id, carried by every event of the saga. */
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'contact_id' }) contactId!: string;
  /** The member or API key id that asked (docs/decisions/0161). */
  @TextColumn(64, { name: 'requested_by' }) requestedBy!: string;
  @DateTimeColumn({ name: 'requested_at' }) requestedAt!: Date;
  /** Set once every participant confirmed. */
  @DateTimeColumn({ name: 'completed_at', nullable: true }) completedAt!: Date | null;
}

/** One participant's confirmation of an erasure: the first one it sent is kept (a redelivery confirms zeros). */
@Entity('erasure_confirmations')
export class ErasureConfirmationRow {
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'erasure_id' }) erasureId!: string;
  /** A name of `ERASURE_PARTICIPANTS`. */
  @PrimaryColumn({ type: 'varchar', length: 40 }) service!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  /** `[{kind, count}]` as JSON text. */
  @LongTextColumn() counts!: string;
  @DateTimeColumn({ name: 'confirmed_at' }) confirmedAt!: Date;
}
