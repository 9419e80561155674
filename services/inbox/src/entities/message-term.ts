import { Entity, Index, PrimaryColumn } from 'typeorm';
import { BoolColumn, CodePointTextColumn, DateTimeColumn, MAX_TERM_LENGTH, RefColumn } from '@svc/kit';

/**
 * One row per distinct term of a visible message's text (docs/decisions/0054-message-term-table.md), written in the
 * transaction that writes the text. A search reads a term range of the primary key and finds, ordered and filtered
 * without reading the messages, the page of messages or (without a filter) of conversations that match.
 */
@Entity('message_terms')
@Index('ix_message_terms_message', ['messageId', 'term'])
export class MessageTermRow {
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'org_id' }) orgId!: string;
  @CodePointTextColumn(MAX_TERM_LENGTH, { primary: true }) term!: string;
  @PrimaryColumn({ type: 'datetime', precision: 3, name: 'created_at' }) createdAt!: Date;
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'message_id' }) messageId!: string;
  @RefColumn({ name: 'chat_id' }) chatId!: string;
  @RefColumn({ name: 'conversation_id', nullable: true }) conversationId!: string | null;
  /** The conversation's own creation time (never changes): an unfiltered conversation search orders by it. */
  @DateTimeColumn({ name: 'conversation_created_at', nullable: true }) conversationCreatedAt!: Date | null;
  @BoolColumn() internal!: boolean;
}
