import { Entity, PrimaryColumn } from 'typeorm';
import { DateTimeColumn, JsonColumn } from '@svc/kit';
import type { ErasureKindCount } from '@svc/kit';

/**
 * One participant's confirmation of a client org's deprovisioning: the first one it sent is kept (a redelivered
 * request confirms zeros). Identity's own is written with the request.
 */
@Entity('org_erasure_confirmations')
export class OrgErasureConfirmationRow {
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'org_id' }) orgId!: string;
  /** A name of `ORG_ERASURE_PARTICIPANTS`. */
  @PrimaryColumn({ type: 'varchar', length: 40 }) service!: string;
  @JsonColumn() counts!: ErasureKindCount[];
  @DateTimeColumn({ name: 'confirmed_at' }) confirmedAt!: Date;
}
