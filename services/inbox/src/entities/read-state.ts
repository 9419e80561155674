import { Entity, Index } from 'typeorm';
import { DateTimeColumn, IdColumn, RefColumn } from '@svc/kit';

/**
 * How far one reader (a member, or an API key acting as one) has read a chat: a watermark, so marking read is one
 * upsert and unread counts are "inbound messages after the watermark".
 */
@Entity('read_states')
@Index('ux_read_states_chat_reader', ['orgId', 'chatId', 'readerId'], { unique: true })
export class ReadStateRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'chat_id' }) chatId!: string;
  @RefColumn({ name: 'reader_id' }) readerId!: string;
  @DateTimeColumn({ name: 'read_up_to' }) readUpTo!: Date;
  @RefColumn({ name: 'read_up_to_id' }) readUpToId!: string;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}
