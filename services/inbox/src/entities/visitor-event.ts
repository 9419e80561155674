import { Column, Entity, Index } from 'typeorm';
import { DateTimeColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';

export const VISITOR_EVENT_TYPES = [
  'message.created',
  'message.updated',
  'message.deleted',
  'message.status_changed',
  'chat.closed',
  'chat.reopened',
] as const;
export type VisitorEventType = (typeof VISITOR_EVENT_TYPES)[number];

/**
 * One visitor-visible change of a chat, numbered from 1 without gaps within the chat (docs/decisions/0080): what
 * VisitorService.ListVisitorEvents replays (the SSE event ids of widget-api). A message event names the message only;
 * the message is read as it is now. Kept while the chat exists, deleted with it.
 */
@Entity('visitor_events')
@Index('ux_visitor_events_chat_seq', ['chatId', 'seq'], { unique: true })
export class VisitorEventRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'chat_id' }) chatId!: string;
  @Column({ type: 'int' }) seq!: number;
  @TextColumn(32) type!: VisitorEventType;
  @RefColumn({ name: 'message_id', nullable: true }) messageId!: string | null;
  @DateTimeColumn({ name: 'occurred_at' }) occurredAt!: Date;
}
