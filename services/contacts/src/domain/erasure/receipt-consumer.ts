import { ERASE_CONFIRMED, ERASURE_TOPIC, consumeEvents, type EventBus, type Logger, type Subscription } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import type { Erasures } from './receipts';

export const ERASURE_RECEIPTS_GROUP = 'contacts.erasure-receipts';

/**
 * Records every participant's `contact.erase_confirmed` on its erasure's receipt (from the beginning: a confirmation
 * sent while contacts was down is recorded when it is back). Idempotent: the first confirmation of each participant
 * is kept.
 */
export function subscribeErasureReceipts(
  bus: EventBus,
  erasures: Erasures,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  const source = { groupId: topicPrefix + ERASURE_RECEIPTS_GROUP, topic: topicPrefix + ERASURE_TOPIC };
  return bus.subscribe({
    groupId: source.groupId,
    topics: [source.topic],
    fromBeginning: true,
    handle: async (record) => {
      const envelope = Envelope.decode(record.value);
      const confirmation = envelope.erasure;
      if (envelope.type !== ERASE_CONFIRMED || !confirmation) return;
      await consumeEvents([envelope], source, async () => {
        const recorded = await erasures.confirm(
          envelope.orgId,
          confirmation.erasureId,
          confirmation.service,
          confirmation.counts,
          new Date(envelope.occurredAt || Date.now()),
        );
        if (!recorded)
          logger.warn(
            { erasureId: confirmation.erasureId, service: confirmation.service },
            'erasure confirmation of no known erasure or participant ignored',
          );
      });
    },
  });
}
