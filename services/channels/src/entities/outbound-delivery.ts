import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import {
  BoolColumn,
  DateTimeColumn,
  EnumColumn,
  IdColumn,
  JsonColumn,
  LongTextColumn,
  RefColumn,
  TextColumn,
} from '@svc/kit';

/**
 * Where one outbound message is on its way to the platform (docs/decisions/0141):
 * - PENDING: due at `next_attempt_at` (held while its channel is PAUSED or NEEDS_REAUTHORIZATION);
 * - SENDING: an attempt was claimed and recorded before the platform call, leased until `lease_until`;
 * - SENT: the platform accepted it (`platform_message_ids`);
 * - FAILED: given up (`failure_kind`), reported to the inbox.
 */
export const DELIVERY_STATES = ['PENDING', 'SENDING', 'SENT', 'FAILED'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * Why a delivery FAILED. WINDOW_CLOSED: the platform's messaging window (a permanent refusal that a new message from
 * the contact lifts). IN_DOUBT: an attempt started and its answer was never recorded (the process died mid-call):
 * the platform may have the message, so it is never sent again on its own (decision 0141).
 */
export const FAILURE_KINDS = ['PERMANENT', 'WINDOW_CLOSED', 'EXHAUSTED', 'IN_DOUBT', 'DISCONNECTED'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** One outbound message of a platform chat, keyed by the inbox's message id: inserted once, whatever redelivers. */
@Entity('outbound_deliveries')
@Index('ix_outbound_deliveries_due', ['state', 'nextAttemptAt'])
@Index('ix_outbound_deliveries_channel_state', ['channelId', 'state', 'nextAttemptAt'])
@Index('ix_outbound_deliveries_recipient_sent', ['channelId', 'recipient', 'sentAt'])
@Index('ix_outbound_deliveries_unreported', ['inboxReported', 'updatedAt'])
@Index('ix_outbound_deliveries_contact', ['orgId', 'contactId'])
export class OutboundDeliveryRow {
  /** The inbox's message id. */
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'channel_id' }) channelId!: string;
  @RefColumn({ name: 'chat_id' }) chatId!: string;
  @RefColumn({ name: 'contact_id' }) contactId!: string;
  @EnumColumn(DELIVERY_STATES) state!: DeliveryState;
  /** Attempts of the current round (a retryFailedMessage starts a new round at 0). */
  @Column({ type: 'int', default: 0 }) attempts!: number;
  /** Rounds: 1, then one more per retryFailedMessage. */
  @Column({ type: 'int', default: 1 }) round!: number;
  /** When the current round was queued: a round gives up once older than the retry policy's maximum age. */
  @DateTimeColumn({ name: 'queued_at' }) queuedAt!: Date;
  @DateTimeColumn({ name: 'next_attempt_at' }) nextAttemptAt!: Date;
  /** SENDING: until when the attempt's claim holds; after it the attempt is in doubt. */
  @DateTimeColumn({ name: 'lease_until', nullable: true }) leaseUntil!: Date | null;
  /** SENDING: when the running attempt was recorded, before the platform was called. */
  @DateTimeColumn({ name: 'attempt_started_at', nullable: true }) attemptStartedAt!: Date | null;
  /** The platform user id the message went to (the chat contact's CHANNEL_USER_ID identity): watermarks use it. */
  @TextColumn(191, { nullable: true }) recipient!: string | null;
  @JsonColumn({ name: 'platform_message_ids', nullable: true }) platformMessageIds!: string[] | null;
  @DateTimeColumn({ name: 'sent_at', nullable: true }) sentAt!: Date | null;
  @EnumColumn(FAILURE_KINDS, { name: 'failure_kind', nullable: true }) failureKind!: FailureKind | null;
  /** The platform's code (`131026`, `http_503`, `timeout`) of the last failure, FAILED or retried. */
  @TextColumn(100, { name: 'failure_code', nullable: true }) failureCode!: string | null;
  @LongTextColumn({ name: 'failure_message', nullable: true }) failureMessage!: string | null;
  /**
   * Whether the inbox has been told the state (SENT / FAILED). A state is recorded first and reported after, so a
   * report the inbox did not take (down, a crash between the two) is made again by the sender's next pass.
   */
  @BoolColumn({ name: 'inbox_reported', default: true }) inboxReported!: boolean;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}

/** A platform's message id → our message (status callbacks name the platform's id); one per part sent. */
@Entity('outbound_platform_messages')
export class OutboundPlatformMessageRow {
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'channel_id' }) channelId!: string;
  @PrimaryColumn({ type: 'varchar', length: 191, name: 'platform_message_id' }) platformMessageId!: string;
  @RefColumn({ name: 'message_id' }) messageId!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'chat_id' }) chatId!: string;
}
