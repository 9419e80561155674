import { Column, Entity, Index } from 'typeorm';
import { DateTimeColumn, EnumColumn, IdColumn, LongTextColumn, RefColumn, TextColumn } from '@svc/kit';
import { FlowStatus, FlowTriggerType } from '@svc/proto/flows/v1';

/** A flow: a trigger and ordered steps (JSON text of `FlowStep[]`). */
@Entity('flows')
@Index('ix_flows_org_created', ['orgId', 'createdAt', 'id'])
@Index('ix_flows_connection', ['orgId', 'connectionId', 'status'])
export class FlowRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @TextColumn(200) name!: string;
  @EnumColumn([FlowStatus.DRAFT, FlowStatus.PUBLISHED]) status!: FlowStatus;
  @EnumColumn([FlowTriggerType.WEBHOOK_RECEIVED, FlowTriggerType.STARTED_FOR_CHAT], { name: 'trigger_type' })
  triggerType!: FlowTriggerType;
  @RefColumn({ name: 'connection_id', nullable: true }) connectionId!: string | null;
  @LongTextColumn() steps!: string;
  @Column({ type: 'int' }) version!: number;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
  @DateTimeColumn({ name: 'published_at', nullable: true }) publishedAt!: Date | null;
}
