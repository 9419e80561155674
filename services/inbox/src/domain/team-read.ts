import type { EntityManager } from 'typeorm';
import { In } from 'typeorm';
import { enqueueEvents } from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';
import { DeliveryStatus, MessageDirection } from '@svc/proto/inbox/v1';
import { MessageRow, type ChatRow } from '../entities';
import { messageEvent } from './events';
import { recordVisitorEvent } from './visitor-log';

/**
 * The team (a member or an API key) read a web chat up to `upTo`: the visitor's own messages up to it become READ
 * (docs/decisions/0285), each with its visitor event number and `message.status_changed`, which is how the widget's
 * mark of them moves from Sent to Read. Inbound messages of the messaging platforms keep NOT_APPLICABLE: their read
 * receipts are the platform's, not the inbox's to claim. The chat is locked by the caller (`lockChat`).
 */
export async function markVisitorMessagesRead(
  manager: EntityManager,
  chat: ChatRow,
  upTo: { at: Date; id: string },
  at: Date,
): Promise<MessageRow[]> {
  if (chat.channelType !== ChannelType.WEB) return [];
  const reading = await manager
    .getRepository(MessageRow)
    .createQueryBuilder('m')
    .where('m.orgId = :orgId AND m.chatId = :chatId', { orgId: chat.orgId, chatId: chat.id })
    .andWhere('m.direction = :inbound AND m.internal = :internal AND m.deletedAt IS NULL', {
      inbound: MessageDirection.INBOUND,
      internal: false,
    })
    .andWhere('m.deliveryStatus = :unread', { unread: DeliveryStatus.NOT_APPLICABLE })
    .andWhere('(m.createdAt < :at OR (m.createdAt = :at AND m.id <= :id))', { at: upTo.at, id: upTo.id })
    .orderBy('m.createdAt', 'ASC')
    .addOrderBy('m.id', 'ASC')
    .getMany();
  if (!reading.length) return [];
  await manager.update(
    MessageRow,
    { orgId: chat.orgId, chatId: chat.id, id: In(reading.map((m) => m.id)) },
    { deliveryStatus: DeliveryStatus.READ },
  );
  const events = [];
  for (const message of reading) {
    message.deliveryStatus = DeliveryStatus.READ;
    const visitorSeq = await recordVisitorEvent(manager, chat, 'message.status_changed', message.id, at);
    events.push(messageEvent('message.status_changed', message, chat, { visitorSeq }));
  }
  await enqueueEvents(manager, events, at);
  return reading;
}
