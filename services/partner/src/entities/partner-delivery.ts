import { Entity, Index, Column } from 'typeorm';
import { DateTimeColumn, EnumColumn, IdColumn, LongTextColumn, RefColumn, TextColumn } from '@svc/kit';
import { PartnerWebhookDeliveryState_Status as DeliveryStatus } from '@svc/proto/partner/v1/partner_webhooks';

/**
 * One event for one webhook: the body is fixed when the delivery is created (every attempt sends the same bytes under
 * the same `webhook-id`), the schedule moves `next_attempt_at`. Unique per webhook and event, so a redelivered event
 * creates nothing twice.
 */
@Entity('partner_deliveries')
@Index('ux_partner_deliveries_event', ['webhookId', 'eventId'], { unique: true })
@Index('ix_partner_deliveries_due', ['status', 'nextAttemptAt'])
@Index('ix_partner_deliveries_webhook', ['orgId', 'webhookId', 'createdAt', 'id'])
@Index('ix_partner_deliveries_client', ['clientOrgId'])
@Index('ix_partner_deliveries_contact', ['clientOrgId', 'contactId'])
export class PartnerDeliveryRow {
  /** `msg_<24 hex>`: the `webhook-id` header (no `.`, never chosen by a user). */
  @Column({ type: 'varchar', length: 40, primary: true }) id!: string;
  /** The provider org (the webhook's). */
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'webhook_id' }) webhookId!: string;
  /** The client org the event happened in. */
  @RefColumn({ name: 'client_org_id' }) clientOrgId!: string;
  /** The event's envelope id. */
  @TextColumn(64, { name: 'event_id' }) eventId!: string;
  /** The catalogue kind, e.g. `message.created`. */
  @TextColumn(64, { name: 'event_type' }) eventType!: string;
  /** The contact the payload is about, when it is about one (its erasure removes the payload). */
  @RefColumn({ name: 'contact_id', nullable: true }) contactId!: string | null;
  /** The exact JSON body every attempt sends and signs. */
  @LongTextColumn() payload!: string;
  @EnumColumn([DeliveryStatus.PENDING, DeliveryStatus.DELIVERED, DeliveryStatus.FAILED, DeliveryStatus.HELD])
  status!: DeliveryStatus;
  @Column({ name: 'attempt_count', type: 'int', default: 0 }) attemptCount!: number;
  @DateTimeColumn({ name: 'next_attempt_at', nullable: true }) nextAttemptAt!: Date | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'delivered_at', nullable: true }) deliveredAt!: Date | null;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}

/** One HTTP attempt of a delivery: what the endpoint answered (or why nothing did). */
@Entity('partner_delivery_attempts')
@Index('ux_partner_delivery_attempts_n', ['deliveryId', 'attempt'], { unique: true })
export class PartnerDeliveryAttemptRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @Column({ name: 'delivery_id', type: 'varchar', length: 40 }) deliveryId!: string;
  @Column({ type: 'int' }) attempt!: number;
  @DateTimeColumn({ name: 'attempted_at' }) attemptedAt!: Date;
  /** 0 when there was no HTTP answer. */
  @Column({ name: 'status_code', type: 'int' }) statusCode!: number;
  @Column({ name: 'latency_ms', type: 'int' }) latencyMs!: number;
  @TextColumn(1000, { name: 'response_excerpt' }) responseExcerpt!: string;
  @TextColumn(500, { nullable: true }) error!: string | null;
}
