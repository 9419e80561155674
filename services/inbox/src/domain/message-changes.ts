import { In, type DataSource, type EntityManager } from 'typeorm';
import {
  FailedPrecondition,
  InvalidArgument,
  enqueueEvents,
  hasScope,
  isDuplicateKeyError,
  newId,
  now,
  requireOrg,
  requireScope,
  type NewEvent,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { MessageDirection, MessageType, type Message } from '@svc/proto/inbox/v1';
import { MessageEditRow, MessageLabelRow, MessageReactionRow, MessageRow, type ChatRow } from '../entities';
import { authorOf } from './actor';
import { messageEvent } from './events';
import { requireApplicableLabels } from './label-rules';
import { findMessage, requireId } from './lookups';
import type { MediaAttachments } from './media-attachments';
import type { MessageReader } from './message-details';
import { MAX_TEXT_LENGTH, validText } from './message-input';
import { searchIndex } from './search-index';
import { lockChat, recordVisitorEvent, visibleToVisitor } from './visitor-log';

export const MAX_LABELS_PER_MESSAGE = 20;
const EMOJI =
  /^(?=.*(?:\p{Extended_Pictographic}|\p{Regional_Indicator}))(?:\p{Emoji}|\p{Emoji_Component}|\u200d|\ufe0f)+$/u;

/** A single emoji (with its modifiers and joiners), not free text. */
export function validEmoji(emoji: string): string {
  if (emoji.length > 32 || !EMOJI.test(emoji)) throw new InvalidArgument('emoji must be one emoji', { field: 'emoji' });
  return emoji;
}

/** An edit or delete the visitor sees gets the chat's next visitor event number; a note's gets none (0). */
async function visitorSeqOf(manager: EntityManager, chat: ChatRow, row: MessageRow, at: Date): Promise<number> {
  if (!visibleToVisitor(row)) return 0;
  return recordVisitorEvent(manager, chat, row.deletedAt ? 'message.deleted' : 'message.updated', row.id, at);
}

/** Edits, soft deletes, reactions and labels of existing messages. */
export class MessageChanges {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly reader: MessageReader,
    private readonly attachments: MediaAttachments,
  ) {}

  /** Edits the text of an outbound message; the previous text goes into the edit history. */
  async update(principal: Principal, messageId: string, text: string): Promise<Message> {
    requireScope(principal, ApiScope.MESSAGES_SEND);
    return this.change(principal, messageId, async (row, manager, at, chat) => {
      if (row.direction !== MessageDirection.OUTBOUND)
        throw new FailedPrecondition('only messages sent from the inbox can be edited', { field: 'messageId' });
      this.requireNotDeleted(row);
      const next = row.type === MessageType.TEXT || row.type === MessageType.BUTTONS ? validText(text, 'text') : text;
      if (next.length > MAX_TEXT_LENGTH)
        throw new InvalidArgument(`text must be at most ${MAX_TEXT_LENGTH} characters`, { field: 'text' });
      if (next === row.text) return [];
      await manager.insert(MessageEditRow, {
        id: newId(at),
        orgId: row.orgId,
        messageId: row.id,
        previousText: row.text,
        editorId: authorOf(principal).authorId,
        editedAt: at,
      });
      row.text = next;
      row.editedAt = at;
      await manager.update(MessageRow, { id: row.id }, { text: next, editedAt: at });
      await searchIndex.replace(manager, row);
      return [messageEvent('message.updated', row, chat, { visitorSeq: await visitorSeqOf(manager, chat, row, at) })];
    });
  }

  /** Soft delete: the message keeps its place, shows as deleted and loses its text, content and history. */
  async delete(principal: Principal, messageId: string): Promise<Message> {
    requireScope(principal, ApiScope.MESSAGES_SEND);
    return this.change(principal, messageId, async (row, manager, at, chat) => {
      if (row.deletedAt) return [];
      row.deletedAt = at;
      await manager.update(MessageRow, { id: row.id }, { deletedAt: at });
      await searchIndex.replace(manager, row);
      await manager.delete(MessageEditRow, { orgId: row.orgId, messageId: row.id });
      // The media stays in the library; the deleted message no longer shows it in chat media reads and counts.
      await this.attachments.detachMessages(manager, row.orgId, [row.id]);
      return [messageEvent('message.deleted', row, chat, { visitorSeq: await visitorSeqOf(manager, chat, row, at) })];
    });
  }

  /** One reaction per reactor per emoji: adding it again changes nothing. */
  async addReaction(principal: Principal, messageId: string, emoji: string): Promise<Message> {
    requireScope(principal, ApiScope.MESSAGES_SEND);
    validEmoji(emoji);
    return this.change(principal, messageId, async (row, manager, at, chat) => {
      this.requireNotDeleted(row);
      const { authorId, authorType } = authorOf(principal);
      const existing = await manager.findOneBy(MessageReactionRow, {
        orgId: row.orgId,
        messageId: row.id,
        reactorId: authorId,
        emoji,
      });
      if (existing) return [];
      try {
        await manager.insert(MessageReactionRow, {
          id: newId(at),
          orgId: row.orgId,
          messageId: row.id,
          reactorId: authorId,
          reactorType: authorType,
          emoji,
          createdAt: at,
        });
      } catch (error) {
        if (isDuplicateKeyError(error)) return []; // the same reaction, added concurrently
        throw error;
      }
      return [messageEvent('message.reaction_added', row, chat, { emoji, actorId: authorId })];
    });
  }

  async removeReaction(principal: Principal, messageId: string, emoji: string): Promise<Message> {
    requireScope(principal, ApiScope.MESSAGES_SEND);
    validEmoji(emoji);
    return this.change(principal, messageId, async (row, manager, _at, chat) => {
      const { authorId } = authorOf(principal);
      const result = await manager.delete(MessageReactionRow, {
        orgId: row.orgId,
        messageId: row.id,
        reactorId: authorId,
        emoji,
      });
      return result.affected ? [messageEvent('message.reaction_removed', row, chat, { emoji, actorId: authorId })] : [];
    });
  }

  /**
   * Replaces the message's labels. Every label must be one of the org's; an archived label may stay on a message
   * that has it but cannot be newly applied.
   */
  async setLabels(principal: Principal, messageId: string, labelIds: string[]): Promise<Message> {
    requireScope(principal, ApiScope.CONVERSATIONS_MANAGE);
    const wanted = [...new Set(labelIds.map((id) => requireId(id, 'labelIds')))];
    if (wanted.length > MAX_LABELS_PER_MESSAGE)
      throw new InvalidArgument(`a message carries at most ${MAX_LABELS_PER_MESSAGE} labels`, { field: 'labelIds' });
    return this.change(principal, messageId, async (row, manager, at, chat) => {
      const current = await manager.findBy(MessageLabelRow, { orgId: row.orgId, messageId: row.id });
      const had = new Set(current.map((l) => l.labelId));
      const added = wanted.filter((id) => !had.has(id));
      await requireApplicableLabels(manager, row.orgId, wanted, added, 'labelIds');
      const removed = current.filter((l) => !wanted.includes(l.labelId));
      if (!added.length && !removed.length) return [];
      if (removed.length)
        await manager.delete(MessageLabelRow, { messageId: row.id, labelId: In(removed.map((l) => l.labelId)) });
      if (added.length)
        await manager.insert(
          MessageLabelRow,
          added.map((labelId) => ({ messageId: row.id, labelId, orgId: row.orgId, createdAt: at })),
        );
      return [messageEvent('message.labels_set', row, chat, { labelIds: wanted })];
    });
  }

  private requireNotDeleted(row: MessageRow): void {
    if (row.deletedAt) throw new FailedPrecondition('the message is deleted', { field: 'messageId' });
  }

  private async change(
    principal: Principal,
    messageId: string,
    apply: (row: MessageRow, manager: EntityManager, at: Date, chat: ChatRow) => Promise<NewEvent[]>,
  ): Promise<Message> {
    const orgId = requireOrg(principal);
    const seesNotes = hasScope(principal, ApiScope.NOTES_WRITE);
    // A message never changes chat: its chat is locked first, as by every change that numbers a visitor event
    // (one lock order, chat then messages, so an edit and a delivery report of one message cannot deadlock).
    const { chatId } = await findMessage(this.dataSource.manager, orgId, messageId, seesNotes);
    const row = await this.dataSource.transaction(async (manager) => {
      const chat = await lockChat(manager, orgId, chatId);
      const message = await findMessage(manager, orgId, messageId, seesNotes);
      const at = now();
      await enqueueEvents(manager, await apply(message, manager, at, chat), at);
      return message;
    });
    this.relay().nudge();
    return this.reader.viewOf(this.dataSource.manager, row);
  }
}
