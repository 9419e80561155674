import { Column, Entity, Index } from 'typeorm';
import {
  CodePointTextColumn,
  DateTimeColumn,
  EnumColumn,
  IdColumn,
  LongTextColumn,
  RefColumn,
  TextColumn,
} from '@svc/kit';
import { IdentityVerification } from '@svc/proto/channels/v1';

export const IDENTITY_VERIFICATIONS = [
  IdentityVerification.OFF,
  IdentityVerification.OPTIONAL,
  IdentityVerification.REQUIRED,
] as const;

/**
 * The settings of a WEB channel. What the widget shows (origins, branding, locale, availability, prechat form) is one
 * JSON document, read and written whole and never queried inside; what proofs are checked against is in columns.
 */
@Entity('web_integrations')
@Index('ux_web_integrations_public_key', ['publicKey'], { unique: true })
export class WebIntegrationRow {
  /** The channel's id (channels.id). */
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  /** Compared by code point on both families: `wk_a…` and `wk_A…` are different keys. */
  @CodePointTextColumn(64, { name: 'public_key' }) publicKey!: string;
  /** A `WebSettings` JSON object (domain/web-settings.ts). */
  @LongTextColumn() settings!: string;
  @EnumColumn(IDENTITY_VERIFICATIONS, { name: 'identity_verification' }) identityVerification!: IdentityVerification;
  @TextColumn(255, { name: 'google_client_id' }) googleClientId!: string;
  @Column({ type: 'int', name: 'jwt_max_age_seconds' }) jwtMaxAgeSeconds!: number;
  /** The identity secret sealed with the service's keyring (decision 0014's format); never stored in plain text. */
  @TextColumn(255, { name: 'identity_secret_sealed' }) identitySecretSealed!: string;
  @DateTimeColumn({ name: 'identity_secret_rotated_at' }) identitySecretRotatedAt!: Date;
}
