import { Entity, Index } from 'typeorm';
import { DateTimeColumn, EnumColumn, IdColumn, JsonColumn, LongTextColumn, RefColumn, TextColumn } from '@svc/kit';
import {
  PartnerWebhookDisabledReason,
  PartnerWebhookState_Status as PartnerWebhookStatus,
} from '@svc/proto/partner/v1/partner_webhooks';

/**
 * A provider org's fan-out endpoint. Its signing secrets are sealed with the service's keyring (PARTNER_SECRETS_KEYS,
 * like webhook-ingress's connection secrets): `secret_sealed` signs every delivery; during a rotation's grace period
 * `previous_secret_sealed` signs next to it until `previous_secret_expires_at`.
 */
@Entity('partner_webhooks')
@Index('ix_partner_webhooks_org', ['orgId', 'createdAt', 'id'])
export class PartnerWebhookRow {
  @IdColumn() id!: string;
  /** The TECH_PROVIDER org that registered it. */
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @TextColumn(2048) url!: string;
  /** Event kinds of the catalogue (services/partner/src/domain/catalogue.ts), sorted. */
  @JsonColumn() events!: string[];
  @EnumColumn([PartnerWebhookStatus.ENABLED, PartnerWebhookStatus.DISABLED]) status!: PartnerWebhookStatus;
  @EnumColumn(
    [
      PartnerWebhookDisabledReason.MANUAL,
      PartnerWebhookDisabledReason.ENDPOINT_GONE,
      PartnerWebhookDisabledReason.FAILING,
    ],
    { name: 'disabled_reason', nullable: true },
  )
  disabledReason!: PartnerWebhookDisabledReason | null;
  @DateTimeColumn({ name: 'disabled_at', nullable: true }) disabledAt!: Date | null;
  @TextColumn(500, { nullable: true }) description!: string | null;
  @LongTextColumn({ name: 'secret_sealed' }) secretSealed!: string;
  @LongTextColumn({ name: 'previous_secret_sealed', nullable: true }) previousSecretSealed!: string | null;
  @DateTimeColumn({ name: 'previous_secret_expires_at', nullable: true }) previousSecretExpiresAt!: Date | null;
  /**
   * When the current run of failures began (the first failed attempt since the last success), null while the endpoint
   * succeeds: the auto-disable rule reads it.
   */
  @DateTimeColumn({ name: 'failing_since', nullable: true }) failingSince!: Date | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}
