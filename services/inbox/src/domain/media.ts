import { In, Not, type DataSource, type EntityManager, type SelectQueryBuilder } from 'typeorm';
import {
  Forbidden,
  InvalidArgument,
  NotFound,
  enqueueEvents,
  hasScope,
  keysetPage,
  newId,
  now,
  requireOrg,
  requireScope,
  type Logger,
  type NewEvent,
  type OutboxRelay,
  type PageRequest,
  type Principal,
} from '@svc/kit';
import { ApiScope, PrincipalKind } from '@svc/proto/common/v1';
import { AuthorType, MediaType, type Media } from '@svc/proto/inbox/v1';
import type { DeleteMediaResult, MediaCounts, MediaPage, MediaUpload } from '@svc/proto/inbox/v1/media';
import { MediaRow, MessageMediaRow } from '../entities';
import type { BlobStore } from '../storage/blob-store';
import { authorOf } from './actor';
import type { BlobDeletions } from './blob-deletions';
import { mediaEvent } from './events';
import { findChat, findConversation, requireId } from './lookups';
import { validUpload, type MediaLimits, type ValidUpload } from './media-input';
import type { MediaLinks } from './media-links';
import { mediaView } from './media-views';
import { requireNotErased } from './erasure/erased-contacts';

export type { MediaLimits } from './media-input';

/** Where the chat and conversation reads look: the attachments of one thread, or of every thread of a contact. */
type Scope = { chatId: string } | { conversationId: string };

/**
 * The org's media library (docs/decisions/0021-inbox-media.md): uploads are checked whole before anything is stored,
 * bytes go to blob storage before the row commits (a failed commit removes them), and a delete removes the row with
 * its attachments in one transaction before the bytes.
 */
export class MediaLibrary {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly blobs: BlobStore,
    private readonly links: MediaLinks,
    private readonly limits: MediaLimits,
    private readonly logger: Logger,
    private readonly deletions: BlobDeletions,
  ) {}

  /**
   * `contactId` (SYSTEM only: a channel storing what a platform user sent) uploads the file as that contact's, the
   * uploader ReceiveMessage checks on the contact's chat.
   */
  async create(principal: Principal, upload: MediaUpload | undefined, contactId?: string): Promise<Media> {
    if (!upload) throw new InvalidArgument('file is required', { field: 'file' });
    const [created] = await this.store(principal, [upload], () => 'file', uploaderFor(principal, contactId));
    if (!created) throw new Error('unreachable: one upload gives one media');
    return created;
  }

  /** All or nothing: one refused file refuses the call, naming it (`files.<index>`). */
  async createMany(principal: Principal, uploads: MediaUpload[]): Promise<Media[]> {
    if (!uploads.length) throw new InvalidArgument('files must name at least one file', { field: 'files' });
    if (uploads.length > this.limits.maxFiles)
      throw new InvalidArgument(`at most ${this.limits.maxFiles} files per call`, { field: 'files' });
    return this.store(principal, uploads, (index) => `files.${index}`);
  }

  async delete(principal: Principal, mediaId: string): Promise<DeleteMediaResult> {
    requireScope(principal, ApiScope.MESSAGES_SEND);
    const orgId = requireOrg(principal);
    requireId(mediaId, 'mediaId');
    const { row, detached } = await this.dataSource.transaction(async (manager) => {
      const found = await manager.findOneBy(MediaRow, { orgId, id: mediaId });
      if (!found) throw new NotFound('media not found', { field: 'mediaId' });
      const detached = await manager.countBy(MessageMediaRow, { orgId, mediaId });
      await this.removeRows(manager, orgId, [found]);
      return { row: found, detached };
    });
    this.relay().nudge();
    await this.discardBlobs([row.blobKey]);
    return { mediaId, ok: true, detachedCount: detached };
  }

  async chatMedia(principal: Principal, chatId: string, type: MediaType | undefined, page: PageRequest) {
    const orgId = this.reader(principal);
    const chat = await findChat(this.dataSource.manager, orgId, chatId);
    return this.attachmentPage(principal, orgId, { chatId: chat.id }, type, page);
  }

  async conversationMedia(
    principal: Principal,
    conversationId: string,
    type: MediaType | undefined,
    page: PageRequest,
  ) {
    const orgId = this.reader(principal);
    const conversation = await findConversation(this.dataSource.manager, orgId, conversationId);
    return this.attachmentPage(principal, orgId, { conversationId: conversation.id }, type, page);
  }

  async chatCounts(principal: Principal, chatId: string): Promise<MediaCounts> {
    const orgId = this.reader(principal);
    const chat = await findChat(this.dataSource.manager, orgId, chatId);
    return this.counts(principal, orgId, { chatId: chat.id });
  }

  async conversationCounts(principal: Principal, conversationId: string): Promise<MediaCounts> {
    const orgId = this.reader(principal);
    const conversation = await findConversation(this.dataSource.manager, orgId, conversationId);
    return this.counts(principal, orgId, { conversationId: conversation.id });
  }

  /** The whole library, newest first. Media only ever attached to internal notes stays hidden without NOTES_WRITE. */
  async all(principal: Principal, type: MediaType | undefined, page: PageRequest): Promise<MediaPage> {
    const orgId = this.reader(principal);
    const query = this.dataSource
      .getRepository(MediaRow)
      .createQueryBuilder('md')
      .where('md.orgId = :orgId', { orgId });
    if (type !== undefined) query.andWhere('md.type = :type', { type: validType(type) });
    if (!hasScope(principal, ApiScope.NOTES_WRITE))
      query.andWhere(
        'NOT (EXISTS (SELECT 1 FROM message_media ni WHERE ni.org_id = md.org_id AND ni.media_id = md.id AND ni.internal = :noteFlag)' +
          ' AND NOT EXISTS (SELECT 1 FROM message_media nv WHERE nv.org_id = md.org_id AND nv.media_id = md.id AND nv.internal = :visibleFlag))',
        { noteFlag: true, visibleFlag: false },
      );
    const rows = await keysetPage(
      query,
      { at: 'md.createdAt', id: 'md.id' },
      (row) => ({ at: row.createdAt, id: row.id }),
      page,
      'descending',
    );
    return { ...rows, data: rows.data.map((row) => mediaView(row, this.links)) };
  }

  /**
   * The media a hard delete of `chatIds` removes: every item attached in those threads that no other thread shows, and
   * (an erasure, `uploadedBy`) every item the contact uploaded, wherever it is attached. Reads only: the preview of an
   * erasure counts exactly what `removeWithChats` removes.
   */
  async leavingWith(
    manager: EntityManager,
    orgId: string,
    chatIds: string[],
    uploadedBy?: string,
  ): Promise<MediaRow[]> {
    const attachments = chatIds.length ? await manager.findBy(MessageMediaRow, { orgId, chatId: In(chatIds) }) : [];
    const attachedIds = [...new Set(attachments.map((a) => a.mediaId))];
    const shownElsewhere = attachedIds.length
      ? await manager.findBy(MessageMediaRow, { orgId, mediaId: In(attachedIds), chatId: Not(In(chatIds)) })
      : [];
    const kept = new Set(shownElsewhere.map((a) => a.mediaId));
    const orphans = attachedIds.filter((id) => !kept.has(id));
    const rows = orphans.length ? await manager.findBy(MediaRow, { orgId, id: In(orphans) }) : [];
    if (uploadedBy === undefined) return rows;
    const uploads = await manager.findBy(MediaRow, {
      orgId,
      uploaderType: AuthorType.CONTACT,
      uploaderId: uploadedBy,
    });
    const ids = new Set(rows.map((row) => row.id));
    return [...rows, ...uploads.filter((row) => !ids.has(row.id))];
  }

  /**
   * Part of a hard delete of threads (apiDeleteChat, apiDeleteConversation, an erasure), inside its transaction:
   * detaches every message of the threads and deletes the media `leavingWith` names, with their attachments anywhere,
   * `media.deleted` each and their blob keys recorded for deletion. Returns the keys to `discardBlobs` once the
   * transaction has committed.
   */
  async removeWithChats(manager: EntityManager, orgId: string, chatIds: string[], uploadedBy?: string) {
    const removed = await this.leavingWith(manager, orgId, chatIds, uploadedBy);
    if (chatIds.length) await manager.delete(MessageMediaRow, { orgId, chatId: In(chatIds) });
    await this.removeRows(manager, orgId, removed);
    return removed.map((row) => row.blobKey);
  }

  /** Bytes whose rows are gone (recorded by `removeWithChats` or `delete`): durable, see BlobDeletions. */
  async discardBlobs(keys: string[]): Promise<void> {
    await this.deletions.discard(keys);
  }

  /** Deletes the media rows with every attachment of them, `media.deleted` each, their blobs recorded for deletion. */
  private async removeRows(manager: EntityManager, orgId: string, rows: MediaRow[]): Promise<void> {
    if (!rows.length) return;
    const ids = rows.map((row) => row.id);
    await manager.delete(MessageMediaRow, { orgId, mediaId: In(ids) });
    await manager.delete(MediaRow, { orgId, id: In(ids) });
    await this.deletions.record(
      manager,
      rows.map((row) => row.blobKey),
    );
    await enqueueEvents(
      manager,
      rows.map((row) => mediaEvent('media.deleted', row)),
      now(),
    );
  }

  private reader(principal: Principal): string {
    requireScope(principal, ApiScope.MESSAGES_READ);
    return requireOrg(principal);
  }

  private async store(
    principal: Principal,
    uploads: MediaUpload[],
    fieldOf: (index: number) => string,
    author = authorOf(principal),
  ) {
    // A visitor uploads as its contact (the uploader ReceiveMessage checks); `implement()` opens only CreateMedia to it.
    if (principal.kind !== PrincipalKind.VISITOR) requireScope(principal, ApiScope.MESSAGES_SEND);
    const orgId = requireOrg(principal);
    const valid: ValidUpload[] = [];
    for (const [index, upload] of uploads.entries()) valid.push(await validUpload(upload, this.limits, fieldOf(index)));
    const at = now();
    const rows = valid.map((upload) => {
      const id = newId(at);
      return this.dataSource.manager.create(MediaRow, {
        id,
        orgId,
        type: upload.type,
        contentType: upload.contentType,
        declaredContentType: upload.declaredContentType,
        fileName: upload.fileName,
        sizeBytes: upload.bytes.length,
        sha256: upload.sha256,
        caption: upload.caption,
        uploaderType: author.authorType,
        uploaderId: author.authorId,
        blobKey: `${orgId}/${id}`,
        createdAt: at,
      });
    });
    const keys = rows.map((row) => row.blobKey);
    try {
      await Promise.all(rows.map((row, index) => this.blobs.put(row.blobKey, valid[index]?.bytes ?? Buffer.alloc(0))));
      await this.dataSource.transaction(async (manager) => {
        // A contact's upload (a visitor's, or a channel's for a platform user) is never stored for an erased contact.
        if (author.authorType === AuthorType.CONTACT)
          await requireNotErased(manager, orgId, author.authorId, 'contactId');
        await manager.insert(MediaRow, rows);
        const events: NewEvent[] = rows.map((row) => mediaEvent('media.created', row));
        await enqueueEvents(manager, events, at);
      });
    } catch (error) {
      // Never committed, so never recorded: the bytes just stored go now (a kill here leaves an unreachable file).
      await Promise.all(
        keys.map((key) =>
          this.blobs
            .delete(key)
            .catch((failure: unknown) => this.logger.warn({ err: failure, key }, 'media blob not deleted')),
        ),
      );
      throw error;
    }
    this.relay().nudge();
    return rows.map((row) => mediaView(row, this.links));
  }

  private attachmentPage(
    principal: Principal,
    orgId: string,
    scope: Scope,
    type: MediaType | undefined,
    page: PageRequest,
  ): Promise<MediaPage> {
    const query = this.attachments(principal, orgId, scope);
    if (type !== undefined) query.andWhere('mm.mediaType = :type', { type: validType(type) });
    return keysetPage(
      query,
      { at: 'mm.createdAt', id: 'mm.id' },
      (row) => ({ at: row.createdAt, id: row.id }),
      page,
    ).then(async (rows) => {
      const media = rows.data.length
        ? await this.dataSource.manager.findBy(MediaRow, { orgId, id: In(rows.data.map((a) => a.mediaId)) })
        : [];
      const byId = new Map(media.map((row) => [row.id, row]));
      return {
        ...rows,
        data: rows.data.flatMap((attachment) => {
          const row = byId.get(attachment.mediaId);
          return row ? [mediaView(row, this.links, attachment)] : [];
        }),
      };
    });
  }

  private async counts(principal: Principal, orgId: string, scope: Scope): Promise<MediaCounts> {
    const rows = await this.attachments(principal, orgId, scope)
      .select('mm.mediaType', 'type')
      .addSelect('COUNT(*)', 'count')
      .groupBy('mm.mediaType')
      .getRawMany<{ type: MediaType; count: number | string }>();
    const of = (type: MediaType) => Number(rows.find((row) => row.type === type)?.count ?? 0);
    const counts = {
      image: of(MediaType.IMAGE),
      video: of(MediaType.VIDEO),
      audio: of(MediaType.AUDIO),
      document: of(MediaType.DOCUMENT),
    };
    return { ...counts, total: counts.image + counts.video + counts.audio + counts.document };
  }

  /** Attachments in the scope that the caller may see: on internal notes only with NOTES_WRITE. */
  private attachments(principal: Principal, orgId: string, scope: Scope): SelectQueryBuilder<MessageMediaRow> {
    const query = this.dataSource
      .getRepository(MessageMediaRow)
      .createQueryBuilder('mm')
      .where('mm.orgId = :orgId', { orgId });
    if ('chatId' in scope) query.andWhere('mm.chatId = :chatId', { chatId: scope.chatId });
    else query.andWhere('mm.conversationId = :conversationId', { conversationId: scope.conversationId });
    if (!hasScope(principal, ApiScope.NOTES_WRITE)) query.andWhere('mm.internal = :internal', { internal: false });
    return query;
  }
}

function validType(type: MediaType): MediaType {
  if (![MediaType.IMAGE, MediaType.VIDEO, MediaType.AUDIO, MediaType.DOCUMENT].includes(type))
    throw new InvalidArgument('type must be one of IMAGE, VIDEO, AUDIO, DOCUMENT', { field: 'type' });
  return type;
}

/** Who uploads: the caller, or (SYSTEM only) the contact it names. */
function uploaderFor(principal: Principal, contactId: string | undefined): ReturnType<typeof authorOf> {
  if (contactId === undefined) return authorOf(principal);
  if (principal.kind !== PrincipalKind.SYSTEM)
    throw new Forbidden('only services of this installation may upload on behalf of a contact', { field: 'contactId' });
  requireId(contactId, 'contactId');
  return { authorType: AuthorType.CONTACT, authorId: contactId };
}
