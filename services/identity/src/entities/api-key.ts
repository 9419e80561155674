import { Entity, Index } from 'typeorm';
import { DateTimeColumn, IdColumn, JsonColumn, RefColumn, TextColumn } from '@svc/kit';
import type { ApiScope } from '@svc/proto/common/v1';

/** An org API key `svc_<id>_<secret>`; only the SHA-256 of the secret is stored. */
@Entity('api_keys')
@Index('ix_api_keys_org', ['orgId', 'createdAt'])
export class ApiKeyRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @TextColumn(200) name!: string;
  @JsonColumn() scopes!: ApiScope[];
  @TextColumn(64, { name: 'secret_hash' }) secretHash!: string;
  @RefColumn({ name: 'created_by_member_id' }) createdByMemberId!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'last_used_at', nullable: true }) lastUsedAt!: Date | null;
  @DateTimeColumn({ name: 'revoked_at', nullable: true }) revokedAt!: Date | null;
}
