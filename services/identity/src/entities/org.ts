import { Entity, Index } from 'typeorm';
import { DateTimeColumn, EnumColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';
import { OrgKind } from '@svc/proto/common/v1';

@Entity('orgs')
@Index('ix_orgs_parent', ['parentOrgId'])
export class OrgRow {
  @IdColumn() id!: string;
  @TextColumn(200) name!: string;
  @EnumColumn([OrgKind.STANDARD, OrgKind.TECH_PROVIDER]) kind!: OrgKind;
  @RefColumn({ name: 'parent_org_id', nullable: true }) parentOrgId!: string | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
