import { toIsoOrUndefined, type NewEvent } from '@svc/kit';
import type { ChatRow, CollectionRow, ConversationRow, LabelRow, MediaRow, MessageRow } from '../entities';

export const MESSAGES_TOPIC = 'svc.inbox.messages.v1';
export const CHATS_TOPIC = 'svc.inbox.chats.v1';

export type MessageEventType =
  | 'message.created'
  | 'message.updated'
  | 'message.deleted'
  | 'message.reaction_added'
  | 'message.reaction_removed'
  | 'message.labels_set';

export function messageEvent(
  type: MessageEventType,
  row: MessageRow,
  extra: { emoji?: string; actorId?: string; labelIds?: string[] } = {},
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
        type: row.type,
        conversationId: row.conversationId ?? '',
        editedAt: toIsoOrUndefined(row.editedAt) ?? '',
        deleted: row.deletedAt !== null,
        emoji: extra.emoji ?? '',
        actorId: extra.actorId ?? '',
        labelIds: extra.labelIds ?? [],
        channelId: '',
        contactId: '',
        authorType: row.authorType,
        visitorSeq: 0,
        failureReason: '',
      },
    },
  };
}

export type ChatEventType =
  | 'chat.opened'
  | 'chat.closed'
  | 'chat.reopened'
  | 'chat.assigned'
  | 'chat.unassigned'
  | 'chat.updated'
  | 'chat.read'
  | 'chat.deleted'
  | 'chat.labels_set';

/** `read`: the reader's position (`chat.read`); `labelIds`: the thread's labels after the change (`chat.labels_set`). */
export function chatEvent(
  type: ChatEventType,
  row: ChatRow,
  read?: { readerId: string; upTo: Date },
  labelIds: string[] = [],
): NewEvent {
  return {
    topic: CHATS_TOPIC,
    key: row.id,
    type,
    orgId: row.orgId,
    payload: {
      chat: {
        chatId: row.id,
        channelId: row.channelId,
        contactId: row.contactId,
        status: row.status,
        conversationId: row.conversationId ?? '',
        assigneeId: row.assigneeId ?? '',
        priority: row.priority,
        category: row.category ?? '',
        collectionId: row.collectionId ?? '',
        readerId: read?.readerId ?? '',
        readUpTo: read ? read.upTo.toISOString() : '',
        labelIds,
        visitorSeq: 0,
      },
    },
  };
}

export type ConversationEventType =
  | 'conversation.created'
  | 'conversation.blocked'
  | 'conversation.unblocked'
  | 'conversation.ai_changed'
  | 'conversation.read'
  | 'conversation.deleted';

export function conversationEvent(
  type: ConversationEventType,
  row: ConversationRow,
  extra: { readerId?: string } = {},
): NewEvent {
  return {
    topic: CHATS_TOPIC,
    key: row.id,
    type,
    orgId: row.orgId,
    payload: {
      conversation: {
        conversationId: row.id,
        contactId: row.contactId,
        blocked: row.blocked,
        aiEnabled: row.aiEnabled,
        removePeople: false,
        readerId: extra.readerId ?? '',
      },
    },
  };
}

export function labelEvent(
  type: 'label.created' | 'label.updated' | 'label.archived' | 'label.restored',
  row: LabelRow,
): NewEvent {
  return {
    topic: CHATS_TOPIC,
    key: row.id,
    type,
    orgId: row.orgId,
    payload: { label: { labelId: row.id, name: row.name, color: row.color, archived: row.archivedAt !== null } },
  };
}

export function collectionEvent(
  type: 'collection.created' | 'collection.updated' | 'collection.moved' | 'collection.deleted',
  row: CollectionRow,
): NewEvent {
  return {
    topic: CHATS_TOPIC,
    key: row.id,
    type,
    orgId: row.orgId,
    payload: { collection: { collectionId: row.id, name: row.name, parentId: row.parentId ?? '' } },
  };
}

export function mediaEvent(type: 'media.created' | 'media.deleted', row: MediaRow): NewEvent {
  return {
    topic: MESSAGES_TOPIC,
    key: row.id,
    type,
    orgId: row.orgId,
    payload: {
      media: {
        mediaId: row.id,
        type: row.type,
        contentType: row.contentType,
        sizeBytes: row.sizeBytes,
        sha256: row.sha256,
      },
    },
  };
}
