import { toIso, toIsoOrUndefined } from '@svc/kit';
import { ChatPriority, MessageType, type Chat, type Conversation, type Media, type Message } from '@svc/proto/inbox/v1';
import type { ChatRow, ConversationRow, MessageEditRow, MessageReactionRow, MessageRow } from '../entities';

/** `unreadCount` is the caller's; `labelIds` the thread's labels (both loaded per page: chat-views.ts). */
export function chatView(row: ChatRow, unreadCount: number, labelIds: string[]): Chat {
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
    conversationId: row.conversationId ?? '',
    assigneeId: row.assigneeId ?? undefined,
    priority: row.priority ?? ChatPriority.NORMAL,
    category: row.category ?? undefined,
    subject: row.subject ?? undefined,
    collectionId: row.collectionId ?? undefined,
    unreadCount,
    labelIds,
  };
}

export interface ConversationStats {
  unreadCount: number;
  threadCount: number;
  openThreadCount: number;
}

export function conversationView(
  row: ConversationRow,
  stats: ConversationStats = { unreadCount: 0, threadCount: 0, openThreadCount: 0 },
): Conversation {
  return {
    _id: row.id,
    contact: {
      _id: row.contactId,
      name: row.contactName ?? undefined,
      email: row.contactEmail ?? undefined,
      phone: row.contactPhone ?? undefined,
    },
    blocked: row.blocked,
    aiEnabled: row.aiEnabled,
    ...stats,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    lastMessageAt: toIsoOrUndefined(row.lastMessageAt),
  };
}

/** What a message shows besides its row: edit history, reactions and labels (loaded per page). */
export interface MessageDetails {
  edits: MessageEditRow[];
  reactions: MessageReactionRow[];
  labelIds: string[];
  /** Attached library media with signed links (MEDIA messages). */
  media: Media[];
}

const NO_DETAILS: MessageDetails = { edits: [], reactions: [], labelIds: [], media: [] };

/** A deleted message keeps its place in the thread but shows nothing of what it said. */
export function messageView(row: MessageRow, details: MessageDetails = NO_DETAILS): Message {
  const deleted = row.deletedAt !== null && row.deletedAt !== undefined;
  const content = deleted ? null : row.content;
  return {
    _id: row.id,
    chatId: row.chatId,
    conversationId: row.conversationId ?? '',
    direction: row.direction,
    authorType: row.authorType,
    authorId: row.authorId,
    type: row.type ?? MessageType.TEXT,
    text: deleted ? '' : row.text,
    internal: row.internal,
    deliveryStatus: row.deliveryStatus,
    ...(row.failureReason ? { failureReason: row.failureReason } : {}),
    createdAt: toIso(row.createdAt),
    mediaIds: deleted ? [] : details.media.map((m) => m._id),
    location: content?.location,
    contactCard: content?.contactCard,
    buttons: content?.buttons ?? [],
    editedAt: toIsoOrUndefined(row.editedAt),
    edits: deleted
      ? []
      : details.edits.map((e) => ({ text: e.previousText, editedAt: toIso(e.editedAt), editorId: e.editorId })),
    deleted,
    deletedAt: toIsoOrUndefined(row.deletedAt),
    reactions: details.reactions.map((r) => ({
      emoji: r.emoji,
      reactorId: r.reactorId,
      reactorType: r.reactorType,
      createdAt: toIso(r.createdAt),
    })),
    labelIds: details.labelIds,
    media: deleted ? [] : details.media,
  };
}
