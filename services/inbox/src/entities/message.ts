import { Entity, Index } from 'typeorm';
import {
  BoolColumn,
  DateTimeColumn,
  EnumColumn,
  IdColumn,
  JsonColumn,
  LongTextColumn,
  RefColumn,
  TextColumn,
} from '@svc/kit';
import {
  AuthorType,
  DeliveryStatus,
  MessageDirection,
  MessageType,
  type ContactCard,
  type Location,
  type MessageButton,
} from '@svc/proto/inbox/v1';

export const MAX_EXTERNAL_ID_LENGTH = 200;
export const MAX_FAILURE_REASON_LENGTH = 500;

/** What a non-text message carries (stored as JSON: it is read whole, never queried into). */
export interface MessageContent {
  mediaIds?: string[];
  location?: Location;
  contactCard?: ContactCard;
  buttons?: MessageButton[];
}

/** A message or (internal = true) an internal note in a chat. Its text is searched through `message_terms`. */
@Entity('messages')
@Index('ix_messages_chat_created', ['orgId', 'chatId', 'createdAt', 'id'])
@Index('ix_messages_chat_visible_created', ['orgId', 'chatId', 'internal', 'createdAt', 'id'])
@Index('ix_messages_conversation_created', ['orgId', 'conversationId', 'createdAt', 'id'])
@Index('ix_messages_org_created', ['orgId', 'createdAt', 'id'])
@Index('ux_messages_chat_external', ['chatId', 'externalId'], { unique: true })
export class MessageRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'chat_id' }) chatId!: string;
  @EnumColumn([MessageDirection.INBOUND, MessageDirection.OUTBOUND]) direction!: MessageDirection;
  @EnumColumn([AuthorType.CONTACT, AuthorType.MEMBER, AuthorType.API_KEY, AuthorType.SYSTEM], { name: 'author_type' })
  authorType!: AuthorType;
  @RefColumn({ name: 'author_id' }) authorId!: string;
  @LongTextColumn() text!: string;
  @BoolColumn() internal!: boolean;
  @EnumColumn(
    [
      DeliveryStatus.QUEUED,
      DeliveryStatus.SENT,
      DeliveryStatus.DELIVERED,
      DeliveryStatus.READ,
      DeliveryStatus.FAILED,
      DeliveryStatus.NOT_APPLICABLE,
    ],
    { name: 'delivery_status' },
  )
  deliveryStatus!: DeliveryStatus;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @RefColumn({ name: 'conversation_id', nullable: true }) conversationId!: string | null;
  @EnumColumn(
    [MessageType.TEXT, MessageType.MEDIA, MessageType.LOCATION, MessageType.CONTACT_CARD, MessageType.BUTTONS],
    { default: MessageType.TEXT },
  )
  type!: MessageType;
  @JsonColumn({ nullable: true }) content!: MessageContent | null;
  @DateTimeColumn({ name: 'edited_at', nullable: true }) editedAt!: Date | null;
  /** Soft delete: the row stays (visible as deleted), its text and content are cleared. */
  @DateTimeColumn({ name: 'deleted_at', nullable: true }) deletedAt!: Date | null;
  /** The channel's id of an inbound message (idempotency within the chat: ReceiveMessage's `external_id`). */
  @TextColumn(MAX_EXTERNAL_ID_LENGTH, { name: 'external_id', nullable: true }) externalId!: string | null;
  /** Why delivery FAILED (a platform's error), shown to agents. */
  @TextColumn(MAX_FAILURE_REASON_LENGTH, { name: 'failure_reason', nullable: true }) failureReason!: string | null;
}
