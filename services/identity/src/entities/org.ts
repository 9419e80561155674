import { Entity, Index } from 'typeorm';
import { CodePointTextColumn, DateTimeColumn, EnumColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';
import { OrgKind } from '@svc/proto/common/v1';
import { ClientOrgStatus } from '@svc/proto/identity/v1/client_orgs';

@Entity('orgs')
@Index('ix_orgs_parent', ['parentOrgId', 'createdAt', 'id'])
@Index('ux_orgs_slug', ['slug'], { unique: true })
export class OrgRow {
  @IdColumn() id!: string;
  @TextColumn(200) name!: string;
  /** The org's URL segment on public pages (`/help/:orgSlug`), from its name at creation (docs/decisions/0184). */
  @CodePointTextColumn(63) slug!: string;
  @EnumColumn([OrgKind.STANDARD, OrgKind.TECH_PROVIDER]) kind!: OrgKind;
  @RefColumn({ name: 'parent_org_id', nullable: true }) parentOrgId!: string | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  /**
   * ACTIVE until a deprovisioning starts; from then the org's credentials and X-Svc-Org naming it are refused
   * (docs/decisions/0212-client-org-deprovisioning.md). Every org has one; only client orgs leave ACTIVE.
   */
  @EnumColumn([ClientOrgStatus.ACTIVE, ClientOrgStatus.DEPROVISIONING, ClientOrgStatus.DEPROVISIONED], {
    default: ClientOrgStatus.ACTIVE,
  })
  status!: ClientOrgStatus;
  @DateTimeColumn({ name: 'deprovision_requested_at', nullable: true }) deprovisionRequestedAt!: Date | null;
  /** Set once every participant of ORG_ERASURE_PARTICIPANTS confirmed. */
  @DateTimeColumn({ name: 'deprovisioned_at', nullable: true }) deprovisionedAt!: Date | null;
}
