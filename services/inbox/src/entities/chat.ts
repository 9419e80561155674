import { Column, Entity, Index } from 'typeorm';
import { DateTimeColumn, EnumColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';
import { ChatPriority, ChatStatus } from '@svc/proto/inbox/v1';

export const CHAT_CHANNEL_TYPES = [
  ChannelType.WEB,
  ChannelType.CHAT_APP_A,
  ChannelType.CHAT_APP_B,
  ChannelType.CHAT_APP_C,
  ChannelType.SOCIAL_APP_D,
] as const;
export type ChatChannelType = (typeof CHAT_CHANNEL_TYPES)[number];

/**
 * One contact's thread on one channel. The contact's display fields are a copy kept by the inbox (the contacts
 * service owns the person); they are personal data and masked by the gateway without PII_READ.
 */
@Entity('chats')
@Index('ix_chats_org_created', ['orgId', 'createdAt', 'id'])
@Index('ix_chats_org_status_created', ['orgId', 'status', 'createdAt', 'id'])
@Index('ix_chats_contact_channel', ['orgId', 'contactId', 'channelId'])
@Index('ix_chats_conversation_created', ['orgId', 'conversationId', 'createdAt', 'id'])
@Index('ix_chats_collection_created', ['orgId', 'collectionId', 'createdAt', 'id'])
@Index('ix_chats_assignee_created', ['orgId', 'assigneeId', 'createdAt', 'id'])
export class ChatRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'channel_id' }) channelId!: string;
  @RefColumn({ name: 'contact_id' }) contactId!: string;
  /**
   * The channel's kind, as OpenChat was told (chats opened before issue 16 are WEB): the messaging window of the
   * platform applies to free-form sends (domain/messaging-window.ts, docs/decisions/0140).
   */
  @EnumColumn(CHAT_CHANNEL_TYPES, { name: 'channel_type', default: ChannelType.WEB }) channelType!: ChatChannelType;
  @TextColumn(200, { name: 'contact_name', nullable: true }) contactName!: string | null;
  @TextColumn(254, { name: 'contact_email', nullable: true }) contactEmail!: string | null;
  @TextColumn(32, { name: 'contact_phone', nullable: true }) contactPhone!: string | null;
  @EnumColumn([ChatStatus.OPEN, ChatStatus.CLOSED]) status!: ChatStatus;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
  @DateTimeColumn({ name: 'last_message_at', nullable: true }) lastMessageAt!: Date | null;
  @DateTimeColumn({ name: 'closed_at', nullable: true }) closedAt!: Date | null;
  /** Null only for chats opened before conversations existed (docs/decisions/0020-inbox-domain-model.md). */
  @RefColumn({ name: 'conversation_id', nullable: true }) conversationId!: string | null;
  /** The operator (member id) the thread is assigned to. */
  @RefColumn({ name: 'assignee_id', nullable: true }) assigneeId!: string | null;
  @EnumColumn([ChatPriority.LOW, ChatPriority.NORMAL, ChatPriority.HIGH, ChatPriority.URGENT], {
    default: ChatPriority.NORMAL,
  })
  priority!: ChatPriority;
  @TextColumn(100, { nullable: true }) category!: string | null;
  @TextColumn(200, { nullable: true }) subject!: string | null;
  @RefColumn({ name: 'collection_id', nullable: true }) collectionId!: string | null;
  /**
   * The sequence number of the chat's latest visitor-visible event (`visitor_events`): incremented under this row's
   * lock in the transaction of the change, so the numbers are gapless and in commit order (docs/decisions/0080).
   */
  @Column({ type: 'int', name: 'visitor_seq', default: 0 }) visitorSeq!: number;
  /** How far the contact (the visitor) has read the chat: the newest message it marked read. */
  @DateTimeColumn({ name: 'visitor_read_at', nullable: true }) visitorReadAt!: Date | null;
  @RefColumn({ name: 'visitor_read_id', nullable: true }) visitorReadId!: string | null;
}
