import { Entity, Index } from 'typeorm';
import { DateTimeColumn, EnumColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';
import { MemberRole } from '@svc/proto/common/v1';

/** An org member. Emails are unique across the installation because `login` takes no org. */
@Entity('members')
@Index('ux_members_email', ['email'], { unique: true })
@Index('ix_members_org', ['orgId', 'createdAt'])
export class MemberRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @TextColumn(254) email!: string;
  @TextColumn(200) name!: string;
  @EnumColumn([MemberRole.OWNER, MemberRole.ADMIN, MemberRole.AGENT]) role!: MemberRole;
  @TextColumn(100, { name: 'password_hash' }) passwordHash!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
