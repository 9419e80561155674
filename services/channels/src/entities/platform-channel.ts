import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, EnumColumn, IdColumn, LongTextColumn, RefColumn, TextColumn } from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';

export const PLATFORM_CHANNEL_TYPES = [
  ChannelType.CHAT_APP_A,
  ChannelType.CHAT_APP_B,
  ChannelType.CHAT_APP_C,
  ChannelType.SOCIAL_APP_D,
] as const;
export type PlatformChannelType = (typeof PLATFORM_CHANNEL_TYPES)[number];

/**
 * The settings of a messaging platform channel (CHAT_APP_A/B/C, SOCIAL_APP_D), keyed by the channel id; the shared
 * part (org, status, name, deleted_at = disconnected) is its `channels` row. What the platform said about the account
 * is plain JSON; whatever lets us act as the account (tokens, app secrets) and the secret the platform presents to
 * us are sealed with the service's keyring (the row's org and channel id as associated data).
 */
@Entity('platform_channels')
@Index('ux_platform_channels_connected', ['connectedAccount'], { unique: true })
export class PlatformChannelRow {
  /** The channel's id (channels.id). */
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @EnumColumn(PLATFORM_CHANNEL_TYPES) type!: PlatformChannelType;
  /**
   * `<TYPE>:<the platform's account id>` (phone number id, bot id, page id, …) while connected, null once
   * disconnected: one account feeds at most one connected channel of the whole installation, since a platform
   * delivers an account's webhooks to one place.
   */
  @TextColumn(191, { name: 'connected_account', nullable: true }) connectedAccount!: string | null;
  /** The platform's id of the account (kept after a disconnect, for history). */
  @TextColumn(191, { name: 'external_account_id' }) externalAccountId!: string;
  /** A `PlatformAccount` JSON object (platforms/adapter.ts): what the platform answered when validating. */
  @LongTextColumn() account!: string;
  /** The kind's credentials (platforms/<kind>/credentials.ts) as JSON, sealed. Erased on disconnect. */
  @LongTextColumn({ name: 'credentials_sealed' }) credentialsSealed!: string;
  /**
   * The secret the platform presents on every inbound request that is not signed with a credential (a secret-token
   * header, a GET verify token), generated here, sealed. Empty when the kind signs with a credential only.
   */
  @TextColumn(255, { name: 'webhook_secret_sealed' }) webhookSecretSealed!: string;
  /** The org's AI auto-reply switch (updateChannel). */
  @BoolColumn({ name: 'ai_auto_reply', default: false }) aiAutoReply!: boolean;
  /** When the platform last refused the credentials (status NEEDS_REAUTHORIZATION), and why. */
  @TextColumn(500, { name: 'authorization_error' }) authorizationError!: string;
  @DateTimeColumn({ name: 'connected_at' }) connectedAt!: Date;
}
