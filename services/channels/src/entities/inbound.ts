import { Entity, Index, PrimaryColumn } from 'typeorm';
import { DateTimeColumn, IdColumn, JsonColumn, RefColumn, TextColumn } from '@svc/kit';

/**
 * `platform_webhook.received` events the inbound consumer has applied whole (decision 0136): a redelivered envelope
 * finds its id here and does nothing. Written after every event of the body was applied.
 */
@Entity('platform_inbound_events')
@Index('ix_platform_inbound_events_processed', ['processedAt'])
export class PlatformInboundEventRow {
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'event_id' }) eventId!: string;
  @DateTimeColumn({ name: 'processed_at' }) processedAt!: Date;
}

/**
 * One platform message per channel (decision 0136): the platform's message id deduplicates across webhook
 * redeliveries, whatever chat the contact is in by then. `mediaIds` keeps what was already stored in the media library
 * (a retry does not fetch and store it twice); `messageId` is set once the inbox recorded the message.
 */
@Entity('platform_inbound_messages')
@Index('ux_platform_inbound_messages', ['channelId', 'platformMessageId'], { unique: true })
@Index('ix_platform_inbound_messages_contact', ['contactId'])
export class PlatformInboundMessageRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'channel_id' }) channelId!: string;
  @TextColumn(191, { name: 'platform_message_id' }) platformMessageId!: string;
  @JsonColumn({ name: 'media_ids', nullable: true }) mediaIds!: string[] | null;
  @RefColumn({ name: 'message_id', nullable: true }) messageId!: string | null;
  /** The platform user's contact (null on rows recorded before the contact was kept: decision 0170). */
  @RefColumn({ name: 'contact_id', nullable: true }) contactId!: string | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
