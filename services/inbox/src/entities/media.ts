import { Column, Entity, Index } from 'typeorm';
import { DateTimeColumn, EnumColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';
import { AuthorType, MediaType } from '@svc/proto/inbox/v1';

export const MEDIA_TYPES = [MediaType.IMAGE, MediaType.VIDEO, MediaType.AUDIO, MediaType.DOCUMENT];

/** A file of the org's media library; its bytes are in blob storage under `blobKey`. */
@Entity('media')
@Index('ix_media_org_created', ['orgId', 'createdAt', 'id'])
@Index('ix_media_org_type_created', ['orgId', 'type', 'createdAt', 'id'])
export class MediaRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @EnumColumn(MEDIA_TYPES) type!: MediaType;
  /** Sniffed from the bytes (docs/decisions/0021-inbox-media.md). */
  @TextColumn(127, { name: 'content_type' }) contentType!: string;
  /** What the uploader claimed: kept for diagnostics only. */
  @TextColumn(255, { name: 'declared_content_type', nullable: true }) declaredContentType!: string | null;
  @TextColumn(255, { name: 'file_name' }) fileName!: string;
  @Column({ type: 'int', name: 'size_bytes' }) sizeBytes!: number;
  @TextColumn(64) sha256!: string;
  @TextColumn(1000, { nullable: true }) caption!: string | null;
  @EnumColumn([AuthorType.CONTACT, AuthorType.MEMBER, AuthorType.API_KEY, AuthorType.SYSTEM], { name: 'uploader_type' })
  uploaderType!: AuthorType;
  @RefColumn({ name: 'uploader_id' }) uploaderId!: string;
  @TextColumn(200, { name: 'blob_key' }) blobKey!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
