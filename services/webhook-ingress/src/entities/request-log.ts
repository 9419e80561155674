import { Column, Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, EnumColumn, IdColumn, LongTextColumn, TextColumn } from '@svc/kit';
import { InboundOutcome } from '@svc/proto/webhooks/v1';

/** Every outcome a request can end with: the proto enum's values (spec 7.2, and URL_VERIFIED: decision 0045). */
export const OUTCOMES: readonly InboundOutcome[] = Object.values(InboundOutcome).filter(
  (outcome) => outcome !== InboundOutcome.INBOUND_OUTCOME_UNSPECIFIED && outcome !== InboundOutcome.UNRECOGNIZED,
);

/**
 * One row per request to the public endpoint (spec 7.2), auth failures included, with credential and signature
 * headers scrubbed. The payload itself is not kept (personal data); 30-day retention.
 */
@Entity('inbound_requests')
@Index('ix_requests_connection_created', ['orgId', 'connectionId', 'createdAt', 'id'])
@Index('ix_requests_connection_outcome_created', ['orgId', 'connectionId', 'outcome', 'createdAt', 'id'])
@Index('ix_requests_created', ['createdAt'])
@Index('ix_requests_contact', ['orgId', 'contactId'])
export class RequestLogRow {
  @IdColumn() id!: string;
  /** '' when the connection does not exist. */
  @TextColumn(24, { name: 'org_id' }) orgId!: string;
  @TextColumn(24, { name: 'connection_id' }) connectionId!: string;
  @TextColumn(128, { name: 'request_id', nullable: true }) requestId!: string | null;
  @TextColumn(255, { name: 'idempotency_key', nullable: true }) idempotencyKey!: string | null;
  @EnumColumn(OUTCOMES) outcome!: InboundOutcome;
  @Column({ type: 'int', name: 'http_status' }) httpStatus!: number;
  @LongTextColumn() headers!: string;
  @TextColumn(24, { name: 'contact_id', nullable: true }) contactId!: string | null;
  /** JSON array of the flow ids started. */
  @LongTextColumn({ name: 'flow_ids' }) flowIds!: string;
  @BoolColumn() replay!: boolean;
  @TextColumn(500, { nullable: true }) detail!: string | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
