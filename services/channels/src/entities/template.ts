import { Entity, Index } from 'typeorm';
import { DateTimeColumn, IdColumn, JsonColumn, RefColumn, TextColumn } from '@svc/kit';
import type { TemplateComponents, TemplateSendPayload } from '../domain/templates/vocabulary';

/**
 * A CHAT_APP_A message template as the platform has it (decision 0128), one row per channel, name and language (the
 * platform's own key within a business account). Category and status are the platform's words; the status follows
 * the `message_template_status_update` webhook and syncs.
 */
@Entity('chat_app_a_templates')
@Index('ux_chat_app_a_templates_name', ['channelId', 'name', 'language'], { unique: true })
@Index('ux_chat_app_a_templates_platform_id', ['channelId', 'platformTemplateId'], { unique: true })
export class ChatAppATemplateRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'channel_id' }) channelId!: string;
  @TextColumn(64, { name: 'platform_template_id' }) platformTemplateId!: string;
  @TextColumn(191) name!: string;
  @TextColumn(16) language!: string;
  @TextColumn(32) category!: string;
  @TextColumn(32) status!: string;
  @TextColumn(255, { name: 'rejection_reason' }) rejectionReason!: string;
  /** The components as the platform takes them (HEADER, BODY, FOOTER, BUTTONS). */
  @JsonColumn() components!: TemplateComponents;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}

/**
 * What sendChatAppATemplateMessage asked for (decision 0129): the outbound sender sends this TEMPLATE content instead
 * of the message's text (`templatePayloadOf`). Written before the inbox creates the message (`messageId` null: the
 * send is pending, so the sender waits for it rather than sending the chat's message as text), completed with the
 * message id after. Kept with who asked for it, since the message's author is SYSTEM.
 */
@Entity('chat_app_a_template_sends')
@Index('ux_chat_app_a_template_sends_message', ['messageId'], { unique: true })
@Index('ix_chat_app_a_template_sends_chat', ['chatId', 'messageId'])
export class ChatAppATemplateSendRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'chat_id' }) chatId!: string;
  @RefColumn({ name: 'message_id', nullable: true }) messageId!: string | null;
  @RefColumn({ name: 'template_id' }) templateId!: string;
  @JsonColumn() payload!: TemplateSendPayload;
  /** `MEMBER:<id>` or `API_KEY:<id>`: who asked for the send. */
  @TextColumn(80, { name: 'requested_by' }) requestedBy!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
