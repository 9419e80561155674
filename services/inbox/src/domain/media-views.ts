import { toIso } from '@svc/kit';
import type { Media } from '@svc/proto/inbox/v1';
import type { MediaRow, MessageMediaRow } from '../entities';
import type { MediaLinks } from './media-links';

/** A library item with a fresh signed link; in chat reads also the message it is attached to. */
export function mediaView(row: MediaRow, links: MediaLinks, attachment?: MessageMediaRow): Media {
  const link = links.sign(row.id);
  return {
    _id: row.id,
    type: row.type,
    contentType: row.contentType,
    fileName: row.fileName,
    sizeBytes: row.sizeBytes,
    sha256: row.sha256,
    url: link.url,
    urlExpiresAt: toIso(link.expiresAt),
    caption: row.caption ?? undefined,
    uploaderType: row.uploaderType,
    uploaderId: row.uploaderId,
    createdAt: toIso(row.createdAt),
    messageId: attachment?.messageId,
    chatId: attachment?.chatId,
    attachedAt: attachment ? toIso(attachment.createdAt) : undefined,
  };
}
