import { In, type EntityManager } from 'typeorm';
import { toIso, toIsoOrUndefined } from '@svc/kit';
import { AuthorType, MessageDirection, MessageType, type Media } from '@svc/proto/inbox/v1';
import type { VisitorAuthor, VisitorChat, VisitorMedia, VisitorMessage } from '@svc/proto/inbox/v1/visitor';
import { MessageRow, type ChatRow } from '../entities';
import type { MediaAttachments } from './media-attachments';
import type { MemberDirectory, MemberProfile } from './members';

/** A member by display name and avatar; keys and the system without a name (widget-api shows the team's). */
function authorView(row: MessageRow, profiles: ReadonlyMap<string, MemberProfile>): VisitorAuthor {
  const profile = row.authorType === AuthorType.MEMBER ? profiles.get(row.authorId) : undefined;
  return { type: row.authorType, displayName: profile?.displayName ?? '', avatarUrl: profile?.avatarUrl ?? '' };
}

/** A library item as a visitor sees it: no hash, no uploader. */
function mediaView(media: Media): VisitorMedia {
  return {
    _id: media._id,
    type: media.type,
    contentType: media.contentType,
    fileName: media.fileName,
    sizeBytes: media.sizeBytes,
    url: media.url,
    urlExpiresAt: media.urlExpiresAt,
    caption: media.caption,
  };
}

/** Visitor views of a chat's messages (never internal notes: callers filter them in their queries). */
export class VisitorMessageViews {
  constructor(
    private readonly attachments: MediaAttachments,
    private readonly members: MemberDirectory,
  ) {}

  async views(manager: EntityManager, orgId: string, rows: MessageRow[]): Promise<VisitorMessage[]> {
    if (!rows.length) return [];
    const needsProfiles = rows.some((row) => row.authorType === AuthorType.MEMBER);
    const [media, profiles] = await Promise.all([
      this.attachments.ofMessages(manager, orgId, rows),
      needsProfiles ? this.members.profilesOf(orgId) : new Map<string, MemberProfile>(),
    ]);
    return rows.map((row) => {
      const deleted = row.deletedAt !== null;
      const content = deleted ? null : row.content;
      return {
        _id: row.id,
        chatId: row.chatId,
        direction: row.direction,
        author: authorView(row, profiles),
        type: row.type ?? MessageType.TEXT,
        text: deleted ? '' : row.text,
        media: (media.get(row.id) ?? []).map(mediaView),
        location: content?.location,
        contactCard: content?.contactCard,
        buttons: content?.buttons ?? [],
        deliveryStatus: row.deliveryStatus,
        createdAt: toIso(row.createdAt),
        editedAt: toIsoOrUndefined(row.editedAt),
        deleted,
      };
    });
  }
}

/** Member messages (outbound, not notes, not deleted) after the visitor's read position. */
export async function visitorUnreadCount(manager: EntityManager, chat: ChatRow): Promise<number> {
  const query = manager
    .getRepository(MessageRow)
    .createQueryBuilder('m')
    .where('m.orgId = :orgId AND m.chatId = :chatId', { orgId: chat.orgId, chatId: chat.id })
    .andWhere('m.direction = :outbound AND m.internal = :internal AND m.deletedAt IS NULL', {
      outbound: MessageDirection.OUTBOUND,
      internal: false,
    });
  if (chat.visitorReadAt && chat.visitorReadId)
    query.andWhere('(m.createdAt > :readAt OR (m.createdAt = :readAt AND m.id > :readId))', {
      readAt: chat.visitorReadAt,
      readId: chat.visitorReadId,
    });
  return query.getCount();
}

export async function visitorChatView(manager: EntityManager, chat: ChatRow): Promise<VisitorChat> {
  return {
    _id: chat.id,
    status: chat.status,
    createdAt: toIso(chat.createdAt),
    lastMessageAt: toIsoOrUndefined(chat.lastMessageAt),
    unreadCount: await visitorUnreadCount(manager, chat),
    lastEventSeq: chat.visitorSeq,
  };
}

/** The messages of a chat by id, as they are now (the events of ListVisitorEvents name them). */
export async function messagesById(manager: EntityManager, orgId: string, ids: string[]) {
  const rows = ids.length ? await manager.findBy(MessageRow, { orgId, id: In(ids), internal: false }) : [];
  return new Map(rows.map((row) => [row.id, row]));
}
