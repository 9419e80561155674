import { Entity, PrimaryColumn } from 'typeorm';
import { DateTimeColumn } from '@svc/kit';

/** Events already handled, written in the same transaction as their runs: a redelivery finds it and does nothing. */
@Entity('processed_events')
export class ProcessedEventRow {
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'event_id' }) eventId!: string;
  @DateTimeColumn({ name: 'processed_at' }) processedAt!: Date;
}
