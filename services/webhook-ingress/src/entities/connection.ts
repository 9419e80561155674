import { Column, Entity, Index, VersionColumn } from 'typeorm';
import { DateTimeColumn, EnumColumn, IdColumn, LongTextColumn, RefColumn, TextColumn } from '@svc/kit';
import { HmacEncoding, InboundAuthMode, InboundConnectionStatus, InboundIdentifierType } from '@svc/proto/webhooks/v1';

/** An inbound webhook connection (spec 2.5). */
@Entity('inbound_connections')
@Index('ix_connections_org_created', ['orgId', 'createdAt', 'id'])
export class ConnectionRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @TextColumn(200) name!: string;
  @EnumColumn(
    [
      InboundAuthMode.SHARED_SECRET,
      InboundAuthMode.PAYMENTS_PROVIDER,
      InboundAuthMode.TEAM_CHAT_PROVIDER,
      InboundAuthMode.WEBHOOK_DELIVERY_PLATFORM,
      InboundAuthMode.BILLING_PROVIDER,
      InboundAuthMode.BUSINESS_BANKING_PROVIDER,
      InboundAuthMode.GENERIC_HMAC_SHA256,
    ],
    { name: 'auth_mode' },
  )
  authMode!: InboundAuthMode;
  /** bcrypt hash of the generated Shared Secret. */
  @TextColumn(100, { name: 'secret_hash', nullable: true }) secretHash!: string | null;
  /**
   * The provider's signing secret, sealed (AES-256-GCM, `v1:<keyId>:<iv>:<ciphertext+tag>`, docs/decisions/0014):
   * HMAC needs the key itself, so it cannot be hashed. Never returned by the API.
   */
  @LongTextColumn({ name: 'signing_secret_sealed', nullable: true }) signingSecretSealed!: string | null;
  /**
   * Plaintext signing secrets written before 0014; sealed into `signingSecretSealed` and cleared at start-up (and by
   * `cli/secrets.js reseal`), so always null afterwards. Dropped by a later release.
   */
  @TextColumn(500, { name: 'signing_secret', nullable: true }) legacySigningSecret!: string | null;
  /** Bumped on every rotation: verified-secret cache entries of older versions no longer match. */
  @Column({ type: 'int', name: 'secret_version' }) secretVersion!: number;
  @EnumColumn(
    [
      InboundIdentifierType.CHANNEL_USER_ID,
      InboundIdentifierType.PHONE_NUMBER,
      InboundIdentifierType.EMAIL,
      InboundIdentifierType.CHAT_ID,
    ],
    { name: 'identifier_type' },
  )
  identifierType!: InboundIdentifierType;
  @TextColumn(500, { name: 'identifier_path' }) identifierPath!: string;
  @RefColumn({ name: 'channel_integration_id', nullable: true }) channelIntegrationId!: string | null;
  @TextColumn(100, { name: 'hmac_header', nullable: true }) hmacHeader!: string | null;
  @EnumColumn([HmacEncoding.HEX, HmacEncoding.BASE64], { name: 'hmac_encoding', nullable: true })
  hmacEncoding!: HmacEncoding | null;
  @TextColumn(50, { name: 'hmac_prefix', nullable: true }) hmacPrefix!: string | null;
  @EnumColumn([InboundConnectionStatus.ACTIVE, InboundConnectionStatus.PAUSED]) status!: InboundConnectionStatus;
  /** The learned payload schema: a JSON array of {path, type, required}. */
  @LongTextColumn({ name: 'schema_fields' }) schemaFields!: string;
  @Column({ type: 'int', name: 'schema_version' }) schemaVersion!: number;
  @DateTimeColumn({ name: 'schema_captured_at', nullable: true }) schemaCapturedAt!: Date | null;
  /** The capture tunnel is open until then. */
  @DateTimeColumn({ name: 'capture_until', nullable: true }) captureUntil!: Date | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
  /**
   * Bumped by TypeORM on every UPDATE it makes of the row (`save`, `update`, query-builder updates: decision 0015):
   * the ingress reads it on every request and reads the rest of the row again only when it moved. A change written
   * with hand-made SQL must bump it too.
   */
  @VersionColumn({ default: 1 }) revision!: number;
}
