import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, EnumColumn, IdColumn, RefColumn } from '@svc/kit';
import type { MediaType } from '@svc/proto/inbox/v1';
import { MEDIA_TYPES } from './media';

/**
 * One media item attached to one message. The message's chat, conversation, visibility and the media's type are
 * copied here so the chat and conversation media reads and counts are one indexed range each.
 */
@Entity('message_media')
@Index('ix_message_media_chat', ['orgId', 'chatId', 'createdAt', 'id'])
@Index('ix_message_media_conversation', ['orgId', 'conversationId', 'createdAt', 'id'])
@Index('ix_message_media_media', ['orgId', 'mediaId'])
@Index('ix_message_media_message', ['orgId', 'messageId'])
export class MessageMediaRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'media_id' }) mediaId!: string;
  @RefColumn({ name: 'message_id' }) messageId!: string;
  @RefColumn({ name: 'chat_id' }) chatId!: string;
  @RefColumn({ name: 'conversation_id', nullable: true }) conversationId!: string | null;
  @EnumColumn(MEDIA_TYPES, { name: 'media_type' }) mediaType!: MediaType;
  @BoolColumn() internal!: boolean;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
