import { Entity, Index } from 'typeorm';
import { CodePointTextColumn, DateTimeColumn, EnumColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';
import { OrgKind } from '@svc/proto/common/v1';

@Entity('orgs')
@Index('ix_orgs_parent', ['parentOrgId'])
@Index('ux_orgs_slug', ['slug'], { unique: true })
export class OrgRow {
  @IdColumn() id!: string;
  @TextColumn(200) name!: string;
  /** The org's URL segment on public pages (`/help/:orgSlug`), from its name at creation (docs/decisions/0184). */
  @CodePointTextColumn(63) slug!: string;
  @EnumColumn([OrgKind.STANDARD, OrgKind.TECH_PROVIDER]) kind!: OrgKind;
  @RefColumn({ name: 'parent_org_id', nullable: true }) parentOrgId!: string | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
