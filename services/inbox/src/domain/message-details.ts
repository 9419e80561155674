import { In, type EntityManager } from 'typeorm';
import type { Page } from '@svc/kit';
import type { Message } from '@svc/proto/inbox/v1';
import { MessageEditRow, MessageLabelRow, MessageReactionRow, type MessageRow } from '../entities';
import type { MediaAttachments } from './media-attachments';
import { messageView, type MessageDetails } from './views';

/** Builds message views with their edit history, reactions, labels and media: four queries per page, not per message. */
export class MessageReader {
  constructor(private readonly attachments: MediaAttachments) {}

  async views(manager: EntityManager, orgId: string, rows: MessageRow[]): Promise<Message[]> {
    if (!rows.length) return [];
    const messageId = In(rows.map((r) => r.id));
    const [edits, reactions, labels, media] = await Promise.all([
      manager.find(MessageEditRow, { where: { orgId, messageId }, order: { editedAt: 'ASC', id: 'ASC' } }),
      manager.find(MessageReactionRow, { where: { orgId, messageId }, order: { createdAt: 'ASC', id: 'ASC' } }),
      manager.find(MessageLabelRow, { where: { orgId, messageId }, order: { createdAt: 'ASC', labelId: 'ASC' } }),
      this.attachments.ofMessages(manager, orgId, rows),
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

  async page(manager: EntityManager, orgId: string, page: Page<MessageRow>) {
    return { ...page, data: await this.views(manager, orgId, page.data) };
  }
}
