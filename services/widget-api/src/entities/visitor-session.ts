import { Column, Entity, Index } from 'typeorm';
import { DateTimeColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';

/**
 * One widget session of one browser: the visitor's contact on one web integration. The refresh token is stored only
 * as its SHA-256 and rotated on every use (docs/decisions/0086); the previous hash is kept so a replayed old token is
 * recognised as theft and ends the session.
 */
@Entity('visitor_sessions')
@Index('ix_visitor_sessions_refresh', ['refreshHash'], { unique: true })
@Index('ix_visitor_sessions_previous', ['previousRefreshHash'])
@Index('ix_visitor_sessions_expires', ['expiresAt'])
@Index('ix_visitor_sessions_contact', ['orgId', 'contactId'])
export class VisitorSessionRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  /** The web integration (its channel id). */
  @RefColumn({ name: 'channel_id' }) channelId!: string;
  @RefColumn({ name: 'contact_id' }) contactId!: string;
  /** Empty for an anonymous visitor; the verified user id of an identified one. */
  @TextColumn(255, { name: 'user_id' }) userId!: string;
  /** SHA-256 (hex) of the current refresh token. */
  @TextColumn(64, { name: 'refresh_hash' }) refreshHash!: string;
  /** SHA-256 (hex) of the one before: presenting it again ends the session. */
  @TextColumn(64, { name: 'previous_refresh_hash', nullable: true }) previousRefreshHash!: string | null;
  @Column({ type: 'int', default: 0 }) generation!: number;
  @DateTimeColumn({ name: 'expires_at' }) expiresAt!: Date;
  @DateTimeColumn({ name: 'ended_at', nullable: true }) endedAt!: Date | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}
