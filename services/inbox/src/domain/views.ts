import { toIso, toIsoOrUndefined } from '@svc/kit';
import type { Chat, Message } from '@svc/proto/inbox/v1';
import type { ChatRow, MessageRow } from '../entities';

export function chatView(row: ChatRow): Chat {
  return {
    _id: row.id,
    channelId: row.channelId,
    contact: {
      _id: row.contactId,
      name: row.contactName ?? undefined,
      email: row.contactEmail ?? undefined,
      phone: row.contactPhone ?? undefined,
    },
    status: row.status,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    lastMessageAt: toIsoOrUndefined(row.lastMessageAt),
    closedAt: toIsoOrUndefined(row.closedAt),
  };
}

export function messageView(row: MessageRow): Message {
  return {
    _id: row.id,
    chatId: row.chatId,
    direction: row.direction,
    authorType: row.authorType,
    authorId: row.authorId,
    text: row.text,
    internal: row.internal,
    deliveryStatus: row.deliveryStatus,
    createdAt: toIso(row.createdAt),
  };
}
