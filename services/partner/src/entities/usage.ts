import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { DateTimeColumn, RefColumn } from '@svc/kit';

/**
 * One counter of one client org's month: `metric` is `messages_in`, `messages_out` (per `channel_kind`, a
 * svc.channels.v1.ChannelType name) or `conversations` (channel kind ''). Incremented in place (`count = count + n`) in
 * the transaction that records the events it counts (`partner_usage_events`), so concurrent consumers add up exactly.
 */
@Entity('partner_usage_counters')
@Index('ix_partner_usage_counters_provider', ['providerOrgId', 'period'])
export class UsageCounterRow {
  @PrimaryColumn({ name: 'client_org_id', type: 'varchar', length: 24 }) clientOrgId!: string;
  /** `YYYY-MM`, the UTC month of the events' occurred time. */
  @PrimaryColumn({ type: 'varchar', length: 7 }) period!: string;
  @PrimaryColumn({ type: 'varchar', length: 32 }) metric!: string;
  @PrimaryColumn({ name: 'channel_kind', type: 'varchar', length: 32 }) channelKind!: string;
  /** The client org's TECH_PROVIDER when the event was counted (a client org never changes provider). */
  @RefColumn({ name: 'provider_org_id' }) providerOrgId!: string;
  @Column({ type: 'int' }) count!: number;
}

/** A contact with at least one message in a client org's month: active contacts are the rows of a month, counted. */
@Entity('partner_usage_contacts')
@Index('ix_partner_usage_contacts_provider', ['providerOrgId', 'period'])
export class UsageContactRow {
  @PrimaryColumn({ name: 'client_org_id', type: 'varchar', length: 24 }) clientOrgId!: string;
  @PrimaryColumn({ type: 'varchar', length: 7 }) period!: string;
  @PrimaryColumn({ name: 'contact_id', type: 'varchar', length: 24 }) contactId!: string;
  @RefColumn({ name: 'provider_org_id' }) providerOrgId!: string;
}

/**
 * The events a usage consumer has counted, written in the same transaction as the counters: a redelivered event finds
 * its row and changes nothing.
 */
@Entity('partner_usage_events')
export class UsageEventRow {
  @PrimaryColumn({ type: 'varchar', length: 64 }) consumer!: string;
  @PrimaryColumn({ name: 'event_id', type: 'varchar', length: 24 }) eventId!: string;
  @DateTimeColumn({ name: 'processed_at' }) processedAt!: Date;
}
