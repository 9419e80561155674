import { Entity, Index } from 'typeorm';
import { DateTimeColumn, IdColumn, LongTextColumn, RefColumn } from '@svc/kit';

/** The text a message had before one edit: the edit history `updateMessage` keeps. */
@Entity('message_edits')
@Index('ix_message_edits_message', ['orgId', 'messageId', 'editedAt', 'id'])
export class MessageEditRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'message_id' }) messageId!: string;
  @LongTextColumn({ name: 'previous_text' }) previousText!: string;
  @RefColumn({ name: 'editor_id' }) editorId!: string;
  @DateTimeColumn({ name: 'edited_at' }) editedAt!: Date;
}
