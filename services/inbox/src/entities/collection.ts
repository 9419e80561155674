import { Column, Entity, Index } from 'typeorm';
import { DateTimeColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';

/** A folder of chats in the org's collection tree. */
@Entity('collections')
@Index('ix_collections_org_parent', ['orgId', 'parentId', 'createdAt', 'id'])
export class CollectionRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @TextColumn(100) name!: string;
  @RefColumn({ name: 'parent_id', nullable: true }) parentId!: string | null;
  @Column({ type: 'int' }) depth!: number;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}
