import { Entity, PrimaryColumn } from 'typeorm';
import { DateTimeColumn, TextColumn } from '@svc/kit';

/** A named lease: one replica at a time holds it until `expires_at` (the delivery sweeper's). */
@Entity('leases')
export class LeaseRow {
  @PrimaryColumn({ type: 'varchar', length: 100 }) name!: string;
  @TextColumn(100) holder!: string;
  @DateTimeColumn({ name: 'expires_at' }) expiresAt!: Date;
}
