import { In, type EntityManager } from 'typeorm';
import { ResponseFields, type Page } from '@svc/kit';
import type { Message } from '@svc/proto/inbox/v1';
import { MessageEditRow, MessageLabelRow, MessageReactionRow, type MessageRow } from '../entities';
import type { MediaAttachments } from './media-attachments';
import { messageView, type MessageDetails } from './views';

const NONE = Promise.resolve([]);

/**
 * Builds message views with their edit history, reactions, labels and media: one query each per page, not per message,
 * and none for what the caller does not read (its field mask, docs/decisions/0290): a message list showing text and
 * status costs the message query alone.
 */
export class MessageReader {
  constructor(private readonly attachments: MediaAttachments) {}

  /** `fields`: what the caller reads of each message. */
  async views(
    manager: EntityManager,
    orgId: string,
    rows: MessageRow[],
    fields = ResponseFields.ALL,
  ): Promise<Message[]> {
    if (!rows.length) return [];
    const messageId = In(rows.map((r) => r.id));
    const [edits, reactions, labels, media] = await Promise.all([
      fields.reads('edits')
        ? manager.find(MessageEditRow, { where: { orgId, messageId }, order: { editedAt: 'ASC', id: 'ASC' } })
        : NONE,
      fields.reads('reactions')
        ? manager.find(MessageReactionRow, { where: { orgId, messageId }, order: { createdAt: 'ASC', id: 'ASC' } })
        : NONE,
      fields.reads('labelIds')
        ? manager.find(MessageLabelRow, { where: { orgId, messageId }, order: { createdAt: 'ASC', labelId: 'ASC' } })
        : NONE,
      // mediaIds lists the attachments still in the library, so it needs their rows too.
      fields.reads('media') || fields.reads('mediaIds')
        ? this.attachments.ofMessages(manager, orgId, rows)
        : new Map<string, never[]>(),
    ]);
    const details = new Map<string, MessageDetails>(
      rows.map((r) => [r.id, { edits: [], reactions: [], labelIds: [], media: media.get(r.id) ?? [] }]),
    );
    for (const edit of edits) details.get(edit.messageId)?.edits.push(edit);
    for (const reaction of reactions) details.get(reaction.messageId)?.reactions.push(reaction);
    for (const label of labels) details.get(label.messageId)?.labelIds.push(label.labelId);
    return rows.map((row) => messageView(row, details.get(row.id)));
  }

  async viewOf(manager: EntityManager, row: MessageRow): Promise<Message> {
    const [view] = await this.views(manager, row.orgId, [row]);
    if (!view) throw new Error('unreachable: one row gives one view');
    return view;
  }

  /** `fields`: what the caller reads of the page (its `data` are the messages). */
  async page(manager: EntityManager, orgId: string, page: Page<MessageRow>, fields = ResponseFields.ALL) {
    return { ...page, data: await this.views(manager, orgId, page.data, fields.under('data')) };
  }
}
