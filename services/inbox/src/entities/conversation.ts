import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';

/**
 * One contact's relationship with the org: the parent of that contact's threads (chats) on every channel. Blocking
 * and the AI assistant are set here because they concern the person, not one channel.
 */
@Entity('conversations')
@Index('ux_conversations_org_contact', ['orgId', 'contactId'], { unique: true })
@Index('ix_conversations_org_created', ['orgId', 'createdAt', 'id'])
export class ConversationRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'contact_id' }) contactId!: string;
  @TextColumn(200, { name: 'contact_name', nullable: true }) contactName!: string | null;
  @TextColumn(254, { name: 'contact_email', nullable: true }) contactEmail!: string | null;
  @TextColumn(32, { name: 'contact_phone', nullable: true }) contactPhone!: string | null;
  @BoolColumn() blocked!: boolean;
  @BoolColumn({ name: 'ai_enabled' }) aiEnabled!: boolean;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
  @DateTimeColumn({ name: 'last_message_at', nullable: true }) lastMessageAt!: Date | null;
}
