import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { DateTimeColumn, EnumColumn, LongTextColumn, TextColumn } from '@svc/kit';
import { type InboundOutcome } from '@svc/proto/webhooks/v1';
import { OUTCOMES } from './request-log';

/**
 * The response to the first request with an `X-Idempotency-Key` on a connection. Written in the same transaction
 * as the accepted request's event, so of two concurrent duplicates exactly one commits and the other replays it.
 */
@Entity('idempotency_keys')
@Index('ix_idempotency_created', ['createdAt'])
export class IdempotencyKeyRow {
  /** SHA-256 (hex) of `<connectionId>:<key>`: fixed width whatever the key. */
  @PrimaryColumn({ type: 'varchar', length: 64 }) id!: string;
  @TextColumn(24, { name: 'connection_id' }) connectionId!: string;
  @EnumColumn(OUTCOMES) outcome!: InboundOutcome;
  @Column({ type: 'int', name: 'http_status' }) httpStatus!: number;
  @LongTextColumn({ name: 'response_body' }) responseBody!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
