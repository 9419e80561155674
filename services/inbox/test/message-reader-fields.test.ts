import { expect } from 'chai';
import { ResponseFields, newId } from '@svc/kit';
import { AuthorType, DeliveryStatus, MediaType, MessageDirection, MessageType } from '@svc/proto/inbox/v1';
import {
  MediaRow,
  MessageEditRow,
  MessageLabelRow,
  MessageMediaRow,
  MessageReactionRow,
  MessageRow,
} from '../src/entities';
import { MediaAttachments } from '../src/domain/media-attachments';
import { MediaLinks } from '../src/domain/media-links';
import { MessageReader } from '../src/domain/message-details';
import { statementLoggingDatabase } from './statement-log';

/** The tables a statement reads (`FROM "message_edits"` …), in the order they were read. */
function tablesRead(statements: string[]): string[] {
  return statements.flatMap((sql) => [...sql.matchAll(/from "(\w+)"/gi)].map((m) => m[1] ?? '')).sort();
}

/**
 * A message view's details (edits, reactions, labels, media) cost a query each per page: the reader runs only the
 * ones the caller's field mask reads (docs/decisions/0290), and answers what it reads exactly as without a mask.
 */
describe('inbox message reader: the response field mask', () => {
  const statements: string[] = [];
  const db = statementLoggingDatabase((sql) => void (/^select/i.test(sql) && statements.push(sql)));
  const reader = new MessageReader(
    new MediaAttachments(new MediaLinks({ secret: 'x'.repeat(32), ttlSeconds: 3600, publicUrl: '' })),
  );
  const orgId = newId();
  const at = new Date('2026-12-01T00:00:00.000Z');
  let message: MessageRow;
  const mediaId = newId(at);

  before(async () => {
    await db.initialize();
    message = Object.assign(new MessageRow(), {
      id: newId(at),
      orgId,
      chatId: newId(),
      direction: MessageDirection.OUTBOUND,
      authorType: AuthorType.MEMBER,
      authorId: newId(),
      text: 'with everything',
      internal: false,
      deliveryStatus: DeliveryStatus.SENT,
      createdAt: at,
      conversationId: null,
      type: MessageType.MEDIA,
      content: { mediaIds: [mediaId] },
      editedAt: at,
      deletedAt: null,
      externalId: null,
      failureReason: null,
    });
    await db.getRepository(MessageRow).insert(message);
    await db.getRepository(MessageEditRow).insert({
      id: newId(at),
      orgId,
      messageId: message.id,
      previousText: 'before',
      editorId: message.authorId,
      editedAt: at,
    });
    await db.getRepository(MessageReactionRow).insert({
      id: newId(at),
      orgId,
      messageId: message.id,
      reactorId: newId(),
      reactorType: AuthorType.CONTACT,
      emoji: '👍',
      createdAt: at,
    });
    await db.getRepository(MessageLabelRow).insert({ messageId: message.id, labelId: newId(), orgId, createdAt: at });
    await db.getRepository(MediaRow).insert({
      id: mediaId,
      orgId,
      type: MediaType.IMAGE,
      contentType: 'image/png',
      declaredContentType: null,
      fileName: 'a.png',
      sizeBytes: 1,
      sha256: '0'.repeat(64),
      caption: null,
      uploaderType: AuthorType.MEMBER,
      uploaderId: message.authorId,
      blobKey: 'k',
      createdAt: at,
    });
    await db.getRepository(MessageMediaRow).insert({
      id: newId(at),
      orgId,
      mediaId,
      messageId: message.id,
      chatId: message.chatId,
      conversationId: null,
      mediaType: MediaType.IMAGE,
      internal: false,
      createdAt: at,
    });
  });

  after(() => db.destroy());

  async function page(paths: string[] | undefined) {
    statements.length = 0;
    const answer = await reader.page(
      db.manager,
      orgId,
      { data: [message], hasNext: false, hasPrevious: false },
      ResponseFields.of(paths),
    );
    const [view] = answer.data;
    if (!view) throw new Error('no view');
    return { view, tables: tablesRead(statements) };
  }

  it('without a mask reads every detail', async () => {
    const { view, tables } = await page(undefined);
    expect(tables).to.deep.equal(['media', 'message_edits', 'message_labels', 'message_media', 'message_reactions']);
    expect(view.edits.map((e) => e.text)).to.deep.equal(['before']);
    expect(view.reactions.map((r) => r.emoji)).to.deep.equal(['👍']);
    expect(view.labelIds).to.have.length(1);
    expect(view.mediaIds).to.deep.equal([mediaId]);
    expect(view.media.map((m) => m._id)).to.deep.equal([mediaId]);
  });

  it('reads no detail for a selection of the message row alone, and answers that row', async () => {
    const { view, tables } = await page(['data._id', 'data.text', 'data.editedAt', 'nextCursor']);
    expect(tables).to.deep.equal([]);
    expect(view).to.deep.include({ _id: message.id, text: 'with everything', editedAt: at.toISOString() });
  });

  const details: [string, string[], (v: Awaited<ReturnType<typeof page>>['view']) => unknown, unknown][] = [
    ['data.edits.text', ['message_edits'], (v) => v.edits.map((e) => e.text), ['before']],
    ['data.reactions.emoji', ['message_reactions'], (v) => v.reactions.map((r) => r.emoji), ['👍']],
    ['data.labelIds', ['message_labels'], (v) => v.labelIds.length, 1],
    ['data.mediaIds', ['media', 'message_media'], (v) => v.mediaIds, [mediaId]],
    ['data.media._id', ['media', 'message_media'], (v) => v.media.map((m) => m._id), [mediaId]],
  ];
  for (const [path, tables, of, expected] of details) {
    it(`reads only what ${path} needs, and answers it in full`, async () => {
      const read = await page(['data._id', path]);
      expect(read.tables).to.deep.equal(tables);
      expect(of(read.view)).to.deep.equal(expected);
    });
  }

  it('takes a masked ancestor for all its fields', async () => {
    expect((await page(['data'])).tables).to.have.length(5);
    expect((await page(['nextCursor'])).tables).to.deep.equal([]);
  });
});
