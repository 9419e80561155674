import { In, type DataSource } from 'typeorm';
import {
  InvalidArgument,
  enqueueEvents,
  now,
  requireOrg,
  requireSystem,
  type NewEvent,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { AuthorType, type ChatContact, type MoveChatsToContactResult } from '@svc/proto/inbox/v1';
import { ChatRow, ConversationRow, MediaRow, MessageMediaRow, MessageRow } from '../entities';
import { conversationFor } from './chats';
import { chatEvent } from './events';
import { requireId } from './lookups';
import { requireNotErased } from './erasure/erased-contacts';

/**
 * InboxService.MoveChatsToContact (SYSTEM: widget-api when an anonymous visitor identifies, as Intercom merges a lead
 * into a user): every chat of one contact on one channel moves to another contact and that contact's conversation,
 * with the contact's display fields; its inbound messages and its uploads now name the new contact. Idempotent: a
 * repeat finds nothing left to move and answers no ids. The old conversation stays (empty) for the contacts service
 * to merge or erase (docs/decisions/0083).
 */
export class ChatMoves {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
  ) {}

  async moveToContact(
    principal: Principal,
    channelId: string,
    fromContactId: string,
    to: ChatContact | undefined,
  ): Promise<MoveChatsToContactResult> {
    requireSystem(principal);
    const orgId = requireOrg(principal);
    requireId(channelId, 'channelId');
    requireId(fromContactId, 'fromContactId');
    if (!to) throw new InvalidArgument('toContact is required', { field: 'toContact' });
    requireId(to._id, 'toContact._id');
    if (to._id === fromContactId)
      throw new InvalidArgument('toContact must be another contact', { field: 'toContact._id' });
    const moved = await this.dataSource.transaction(async (manager) => {
      await requireNotErased(manager, orgId, to._id, 'toContact._id');
      const chats = await manager.findBy(ChatRow, { orgId, channelId, contactId: fromContactId });
      if (!chats.length) return [];
      const at = now();
      const events: NewEvent[] = [];
      const conversation = await conversationFor(manager, orgId, to, at, events);
      const chatIds = chats.map((chat) => chat.id);
      const contact = {
        contactId: to._id,
        contactName: to.name ?? null,
        contactEmail: to.email ?? null,
        contactPhone: to.phone ?? null,
      };
      await manager.update(
        ChatRow,
        { orgId, id: In(chatIds) },
        { ...contact, conversationId: conversation.id, updatedAt: at },
      );
      await manager.update(MessageRow, { orgId, chatId: In(chatIds) }, { conversationId: conversation.id });
      await manager.update(
        MessageRow,
        { orgId, chatId: In(chatIds), authorType: AuthorType.CONTACT, authorId: fromContactId },
        { authorId: to._id },
      );
      await manager.update(MessageMediaRow, { orgId, chatId: In(chatIds) }, { conversationId: conversation.id });
      await manager.update(
        MediaRow,
        { orgId, uploaderType: AuthorType.CONTACT, uploaderId: fromContactId },
        { uploaderId: to._id },
      );
      const latest = chats.reduce<Date | null>(
        (max, chat) => (chat.lastMessageAt && (!max || chat.lastMessageAt > max) ? chat.lastMessageAt : max),
        conversation.lastMessageAt,
      );
      if (latest !== conversation.lastMessageAt)
        await manager.update(ConversationRow, { id: conversation.id }, { lastMessageAt: latest, updatedAt: at });
      for (const chat of chats) {
        Object.assign(chat, contact, { conversationId: conversation.id, updatedAt: at });
        events.push(chatEvent('chat.updated', chat));
      }
      await enqueueEvents(manager, events, at);
      return chatIds;
    });
    if (moved.length) this.relay().nudge();
    return { chatIds: moved };
  }
}
