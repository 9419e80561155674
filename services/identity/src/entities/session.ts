import { Entity, Index } from 'typeorm';
import { DateTimeColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';

/** A dashboard session; only the SHA-256 of its token secret is stored. */
@Entity('sessions')
@Index('ix_sessions_member', ['memberId'])
export class SessionRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'member_id' }) memberId!: string;
  @TextColumn(64, { name: 'secret_hash' }) secretHash!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'expires_at' }) expiresAt!: Date;
  @DateTimeColumn({ name: 'ended_at', nullable: true }) endedAt!: Date | null;
}
