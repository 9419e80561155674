import type { NewEvent } from '@svc/kit';
import type { ChatRow, MessageRow } from '../entities';

export const MESSAGES_TOPIC = 'svc.inbox.messages.v1';
export const CHATS_TOPIC = 'svc.inbox.chats.v1';

export function messageEvent(
  type: 'message.created' | 'message.updated' | 'message.deleted',
  row: MessageRow,
): NewEvent {
  return {
    topic: MESSAGES_TOPIC,
    key: row.chatId,
    type,
    orgId: row.orgId,
    payload: {
      message: {
        messageId: row.id,
        chatId: row.chatId,
        direction: row.direction,
        text: row.text,
        internal: row.internal,
        deliveryStatus: row.deliveryStatus,
        createdAt: row.createdAt.toISOString(),
      },
    },
  };
}

export function chatEvent(type: 'chat.opened' | 'chat.closed' | 'chat.reopened', row: ChatRow): NewEvent {
  return {
    topic: CHATS_TOPIC,
    key: row.id,
    type,
    orgId: row.orgId,
    payload: { chat: { chatId: row.id, channelId: row.channelId, contactId: row.contactId, status: row.status } },
  };
}
