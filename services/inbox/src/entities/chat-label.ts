import { Entity, Index, PrimaryColumn } from 'typeorm';
import { DateTimeColumn, RefColumn } from '@svc/kit';

/** A label on a whole thread (`updateChatField` LABELS, or a flow's "add a label" step). */
@Entity('chat_labels')
@Index('ix_chat_labels_label', ['orgId', 'labelId', 'chatId'])
export class ChatLabelRow {
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'chat_id' }) chatId!: string;
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'label_id' }) labelId!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
