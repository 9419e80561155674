import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, EnumColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';
import { PLATFORM_CHANNEL_TYPES, type PlatformChannelType } from './platform-channel';

/**
 * One hosted connect started by `CreatePartnerConnectUrl` (docs/decisions/0122): its id is the signed state's `jti`,
 * so the callback completes it at most once (`used_at`), and what the org asked for (name, AI auto-reply, where to
 * send the browser back) stays here rather than in a URL.
 */
@Entity('connect_states')
@Index('ix_connect_states_expires', ['expiresAt'])
export class ConnectStateRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @EnumColumn(PLATFORM_CHANNEL_TYPES) type!: PlatformChannelType;
  /** Empty: the account's display name. */
  @TextColumn(100) name!: string;
  @BoolColumn({ name: 'ai_auto_reply', default: false }) aiAutoReply!: boolean;
  /** Empty: the callback answers its own page. */
  @TextColumn(2000, { name: 'return_url' }) returnUrl!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'expires_at' }) expiresAt!: Date;
  /** Set when the callback took the state (completed or failed at the platform): a second use is refused. */
  @DateTimeColumn({ name: 'used_at', nullable: true }) usedAt!: Date | null;
  /** The channel the connection made, once done. */
  @TextColumn(24, { name: 'channel_id' }) channelId!: string;
}
