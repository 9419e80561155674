import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, EnumColumn, IdColumn, LongTextColumn, RefColumn } from '@svc/kit';
import { AuthorType, DeliveryStatus, MessageDirection } from '@svc/proto/inbox/v1';

/** A message or (internal = true) an internal note in a chat. */
@Entity('messages')
@Index('ix_messages_chat_created', ['orgId', 'chatId', 'createdAt', 'id'])
@Index('ix_messages_chat_visible_created', ['orgId', 'chatId', 'internal', 'createdAt', 'id'])
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
}
