import { Entity, Index } from 'typeorm';
import { DateTimeColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';

/** An org's label; archived labels stay on the messages that carry them but cannot be newly applied. */
@Entity('labels')
@Index('ux_labels_org_name', ['orgId', 'nameKey'], { unique: true })
@Index('ix_labels_org_created', ['orgId', 'createdAt', 'id'])
export class LabelRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @TextColumn(64) name!: string;
  /** Lower-cased name: label names are unique per org regardless of case, on both database families. */
  @TextColumn(64, { name: 'name_key' }) nameKey!: string;
  @TextColumn(7) color!: string;
  @TextColumn(500, { nullable: true }) description!: string | null;
  @DateTimeColumn({ name: 'archived_at', nullable: true }) archivedAt!: Date | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}
