import { In, type EntityManager } from 'typeorm';
import { NotFound, newId } from '@svc/kit';
import type { Media } from '@svc/proto/inbox/v1';
import { MediaRow, MessageMediaRow, type MessageRow } from '../entities';
import type { MediaLinks } from './media-links';
import { mediaView } from './media-views';

/**
 * The link between messages and library media. Attaching happens in the sending transaction; a soft-deleted message
 * and every hard delete detach, so chat media reads and counts only ever see what a visible message shows.
 */
export class MediaAttachments {
  constructor(private readonly links: MediaLinks) {}

  /**
   * Fails with NOT_FOUND naming the first id that is not in the org's library, or that `mayAttach` refuses (media of
   * another uploader is answered as absent).
   */
  async attach(
    manager: EntityManager,
    message: MessageRow,
    mediaIds: string[],
    field = 'input.mediaIds',
    mayAttach: (media: MediaRow) => boolean = () => true,
  ): Promise<void> {
    const rows = await manager.findBy(MediaRow, { orgId: message.orgId, id: In(mediaIds) });
    const byId = new Map(rows.filter(mayAttach).map((row) => [row.id, row]));
    const missing = mediaIds.find((id) => !byId.has(id));
    if (missing) throw new NotFound(`media ${missing} not found`, { field });
    const attachments = mediaIds.map((mediaId) =>
      manager.create(MessageMediaRow, {
        id: newId(message.createdAt),
        orgId: message.orgId,
        mediaId,
        messageId: message.id,
        chatId: message.chatId,
        conversationId: message.conversationId,
        mediaType: byId.get(mediaId)?.type,
        internal: message.internal,
        createdAt: message.createdAt,
      }),
    );
    await manager.insert(MessageMediaRow, attachments);
  }

  async detachMessages(manager: EntityManager, orgId: string, messageIds: string[]): Promise<void> {
    if (messageIds.length) await manager.delete(MessageMediaRow, { orgId, messageId: In(messageIds) });
  }

  /** The media of each message, in the order the message named them, with signed links. */
  async ofMessages(manager: EntityManager, orgId: string, messages: MessageRow[]): Promise<Map<string, Media[]>> {
    const result = new Map<string, Media[]>();
    const withMedia = messages.filter((m) => m.content?.mediaIds?.length && !m.deletedAt);
    if (!withMedia.length) return result;
    const attachments = await manager.findBy(MessageMediaRow, { orgId, messageId: In(withMedia.map((m) => m.id)) });
    if (!attachments.length) return result;
    const media = await manager.findBy(MediaRow, { orgId, id: In([...new Set(attachments.map((a) => a.mediaId))]) });
    const mediaById = new Map(media.map((row) => [row.id, row]));
    const attached = new Set(attachments.map((a) => `${a.messageId}/${a.mediaId}`));
    for (const message of withMedia) {
      const views = (message.content?.mediaIds ?? [])
        .filter((id) => attached.has(`${message.id}/${id}`))
        .flatMap((id) => {
          const row = mediaById.get(id);
          return row ? [mediaView(row, this.links)] : [];
        });
      result.set(message.id, views);
    }
    return result;
  }
}
