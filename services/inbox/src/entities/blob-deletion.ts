import { Entity, Index } from 'typeorm';
import { DateTimeColumn, IdColumn, TextColumn } from '@svc/kit';

/**
 * A stored file whose media row is gone, waiting for its bytes to be deleted from blob storage. Written in the
 * transaction that removes the media row, deleted once the blob is: a process killed after the commit leaves the row,
 * and the next sweep deletes the bytes (docs/decisions/0166).
 */
@Entity('blob_deletions')
@Index('ix_blob_deletions_created', ['createdAt', 'id'])
export class BlobDeletionRow {
  @IdColumn() id!: string;
  @TextColumn(200, { name: 'blob_key' }) blobKey!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
