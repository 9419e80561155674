import type { DataSource } from 'typeorm';
import type { DeliveredRecord, EventBus, Logger, Subscription } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { recordChatOwnership } from './lookup';

export const CHATS_TOPIC = 'svc.inbox.chats.v1';
export const CHAT_OWNERSHIP_GROUP = 'contacts.chat-ownership';

/**
 * Listens to `chat.opened` so the contacts service knows the chats each contact owns (Chat ID lookups and "the
 * contact's latest chat"). Idempotent: the identity is unique, so a redelivered event records nothing new.
 */
export function subscribeChatOwnership(
  bus: EventBus,
  dataSource: DataSource,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  return bus.subscribe({
    // Prefixed like the topics: installations (and test runs) sharing a cluster must not share consumer groups.
    groupId: topicPrefix + CHAT_OWNERSHIP_GROUP,
    topics: [topicPrefix + CHATS_TOPIC],
    fromBeginning: true,
    handle: async (record: DeliveredRecord) => {
      const envelope = Envelope.decode(record.value);
      if (envelope.type !== 'chat.opened' || !envelope.chat) return;
      const recorded = await recordChatOwnership(
        dataSource,
        envelope.orgId,
        envelope.chat.chatId,
        envelope.chat.contactId,
        new Date(envelope.occurredAt || Date.now()),
      );
      if (recorded) logger.debug({ chatId: envelope.chat.chatId }, 'chat ownership recorded');
    },
  });
}
