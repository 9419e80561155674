import { Entity, Index } from 'typeorm';
import { DateTimeColumn, EnumColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';
import { ChannelStatus, ChannelType } from '@svc/proto/channels/v1';

export const CHANNEL_TYPES = [
  ChannelType.WEB,
  ChannelType.CHAT_APP_A,
  ChannelType.CHAT_APP_B,
  ChannelType.CHAT_APP_C,
  ChannelType.SOCIAL_APP_D,
] as const;
export const CHANNEL_STATUSES = [
  ChannelStatus.ACTIVE,
  ChannelStatus.DISABLED,
  ChannelStatus.PAUSED,
  ChannelStatus.NEEDS_REAUTHORIZATION,
] as const;

/**
 * One way an org's contacts reach it: a web integration, later a messaging platform account. Its id is the channel
 * id chats carry, so a deleted channel keeps its row (`deleted_at`): the chats it opened still name it. The settings
 * of each type live beside it (`web_integrations` for WEB), keyed by the channel id.
 */
@Entity('channels')
@Index('ix_channels_org_type', ['orgId', 'type', 'createdAt'])
export class ChannelRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @EnumColumn(CHANNEL_TYPES) type!: ChannelType;
  @EnumColumn(CHANNEL_STATUSES) status!: ChannelStatus;
  @TextColumn(100) name!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
  /** Set when deleted: answered as NOT_FOUND everywhere from then on. */
  @DateTimeColumn({ name: 'deleted_at', nullable: true }) deletedAt!: Date | null;
}
