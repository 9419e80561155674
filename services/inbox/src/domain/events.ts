import { toIsoOrUndefined, type NewEvent } from '@svc/kit';
import type { AuthorType } from '@svc/proto/inbox/v1';
import type { ChatRow, CollectionRow, ConversationRow, LabelRow, MediaRow, MessageRow } from '../entities';

export const MESSAGES_TOPIC = 'svc.inbox.messages.v1';
export const CHATS_TOPIC = 'svc.inbox.chats.v1';

export type MessageEventType =
  | 'message.created'
  | 'message.updated'
  | 'message.deleted'
  | 'message.reaction_added'
  | 'message.reaction_removed'
  | 'message.labels_set'
  | 'message.status_changed';

/** The chat fields every message event names, so consumers (widget-api, channels) need no lookup. */
export type MessageChat = Pick<ChatRow, 'channelId' | 'contactId'>;

/** `visitorSeq`: the chat's visitor event number of this change (0: not visible to the contact, e.g. a note). */
export function messageEvent(
  type: MessageEventType,
  row: MessageRow,
  chat: MessageChat,
  extra: { emoji?: string; actorId?: string; labelIds?: string[]; visitorSeq?: number } = {},
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
        channelId: chat.channelId,
        contactId: chat.contactId,
        authorType: row.authorType,
        visitorSeq: extra.visitorSeq ?? 0,
        failureReason: row.failureReason ?? '',
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

/**
 * `read`: the reader's position (`chat.read`); `labelIds`: the thread's labels after the change (`chat.labels_set`);
 * `visitorSeq`: the chat's visitor event number of a `chat.closed` / `chat.reopened`.
 */
export function chatEvent(
  type: ChatEventType,
  row: ChatRow,
  read?: { readerId: string; upTo: Date },
  labelIds: string[] = [],
  visitorSeq = 0,
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
        visitorSeq,
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

/** Who is typing, as a visitor or an agent may see it: a type and display fields, never ids of members. */
export interface Typist {
  authorType: AuthorType;
  displayName: string;
  avatarUrl: string;
}

/** chat.typing on svc.inbox.messages.v1 (key: chat id, so it stays in order with the chat's messages). */
export function typingEvent(chat: ChatRow, typist: Typist, typing: boolean): NewEvent {
  return {
    topic: MESSAGES_TOPIC,
    key: chat.id,
    type: 'chat.typing',
    orgId: chat.orgId,
    payload: {
      typing: {
        chatId: chat.id,
        channelId: chat.channelId,
        authorType: typist.authorType,
        displayName: typist.displayName,
        avatarUrl: typist.avatarUrl,
        typing,
      },
    },
  };
}
