import { Entity, Index } from 'typeorm';
import { AuthorType } from '@svc/proto/inbox/v1';
import { DateTimeColumn, EnumColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';

/** One reactor's emoji on a message; the unique index makes adding the same reaction twice a no-op. */
@Entity('message_reactions')
@Index('ux_message_reactions', ['orgId', 'messageId', 'reactorId', 'emoji'], { unique: true })
export class MessageReactionRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'message_id' }) messageId!: string;
  @RefColumn({ name: 'reactor_id' }) reactorId!: string;
  @EnumColumn([AuthorType.CONTACT, AuthorType.MEMBER, AuthorType.API_KEY, AuthorType.SYSTEM], { name: 'reactor_type' })
  reactorType!: AuthorType;
  @TextColumn(32) emoji!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
