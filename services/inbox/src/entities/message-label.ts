import { Entity, Index, PrimaryColumn } from 'typeorm';
import { DateTimeColumn, RefColumn } from '@svc/kit';

/** A label on a message (`setMessageLabels` replaces a message's set). */
@Entity('message_labels')
@Index('ix_message_labels_label', ['orgId', 'labelId', 'messageId'])
export class MessageLabelRow {
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'message_id' }) messageId!: string;
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'label_id' }) labelId!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
