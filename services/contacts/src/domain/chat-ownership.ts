import type { DataSource } from 'typeorm';
import {
  enqueueEvents,
  familyOf,
  isDuplicateKeyError,
  isId,
  consumeEvents,
  newId,
  type DeliveredRecord,
  type EventBus,
  type Logger,
  type OutboxRelay,
  type Subscription,
} from '@svc/kit';
import { IdentifierType } from '@svc/proto/contacts/v1';
import { Envelope } from '@svc/proto/events/v1';
import { ContactRow, IdentityRow } from '../entities';
import { contactEvent } from './events';

export const CHATS_TOPIC = 'svc.inbox.chats.v1';
export const CHAT_OWNERSHIP_GROUP = 'contacts.chat-ownership';

/**
 * The chats each contact owns, as CHAT_ID identities; the newest is "the contact's latest chat" (where flows write).
 * A newly recorded chat emits `contact.updated` in the same transaction, so the ingress stops resolving the contact to
 * its previous latest chat at once (docs/decisions/0015).
 */
export class ChatOwnership {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
  ) {}

  /**
   * Records that a contact owns a chat; recording it again changes nothing (redelivered events, lookups). A contact
   * that does not exist (erased, or never known) records nothing: false.
   */
  async record(orgId: string, chatId: string, contactId: string, at: Date): Promise<boolean> {
    if (!isId(chatId) || !isId(contactId)) return false;
    const outcome = await this.dataSource.transaction(async (manager) => {
      // The contact's row locked first, as a people field write does: an erasure deleting it concurrently either
      // waits for this record (and deletes the identity with the others) or has deleted the row, and nothing is
      // recorded for a contact that no longer exists (docs/decisions/0174).
      const contact = await manager.findOne(ContactRow, {
        where: { orgId, id: contactId },
        ...(familyOf(this.dataSource) === 'mysql' ? { lock: { mode: 'pessimistic_write' as const } } : {}),
      });
      if (!contact) return 'unknown-contact';
      try {
        await manager.insert(IdentityRow, {
          id: newId(at),
          orgId,
          contactId,
          type: IdentifierType.CHAT_ID,
          scope: '',
          value: chatId,
          createdAt: at,
        });
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        return 'known';
      }
      await enqueueEvents(manager, [contactEvent('contact.updated', contact)], at);
      return 'recorded';
    });
    if (outcome === 'recorded') this.relay().nudge();
    return outcome !== 'unknown-contact';
  }
}

/**
 * Listens to `chat.opened` so the contacts service knows the chats each contact owns (Chat ID lookups and "the
 * contact's latest chat"). Idempotent: the identity is unique, so a redelivered event records nothing new.
 */
export function subscribeChatOwnership(
  bus: EventBus,
  chats: ChatOwnership,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  // Prefixed like the topics: installations (and test runs) sharing a cluster must not share consumer groups.
  const source = { groupId: topicPrefix + CHAT_OWNERSHIP_GROUP, topic: topicPrefix + CHATS_TOPIC };
  return bus.subscribe({
    groupId: source.groupId,
    topics: [source.topic],
    fromBeginning: true,
    handle: async (record: DeliveredRecord) => {
      const envelope = Envelope.decode(record.value);
      const chat = envelope.chat;
      if (envelope.type !== 'chat.opened' || !chat) return;
      await consumeEvents([envelope], source, async () => {
        const recorded = await chats.record(
          envelope.orgId,
          chat.chatId,
          chat.contactId,
          new Date(envelope.occurredAt || Date.now()),
        );
        if (recorded) logger.debug({ chatId: chat.chatId }, 'chat ownership recorded');
      });
    },
  });
}
