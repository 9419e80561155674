import { Column, Entity, Index } from 'typeorm';
import { DateTimeColumn, IdColumn, LongTextColumn, RefColumn, TextColumn } from '@svc/kit';

/** A folder of the help center: a tree per org (`parent_id` null at the top). */
@Entity('help_folders')
@Index('ix_help_folders_org_parent', ['orgId', 'parentId', 'position', 'id'])
export class HelpFolderRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'parent_id', nullable: true }) parentId!: string | null;
  @TextColumn(200) name!: string;
  @LongTextColumn({ nullable: true }) description!: string | null;
  /** Order among its siblings (ascending, then by id). */
  @Column({ type: 'int' }) position!: number;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}
