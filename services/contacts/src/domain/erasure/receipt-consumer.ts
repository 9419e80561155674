import { ERASE_CONFIRMED, subscribeErasureEvents, type EventBus, type Logger, type Subscription } from '@svc/kit';
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
  return subscribeErasureEvents(bus, topicPrefix, ERASURE_RECEIPTS_GROUP, ERASE_CONFIRMED, async (envelope, event) => {
    const recorded = await erasures.confirm(
      envelope.orgId,
      event.erasureId,
      event.service,
      event.counts,
      new Date(envelope.occurredAt || Date.now()),
    );
    if (!recorded)
      logger.warn(
        { erasureId: event.erasureId, service: event.service },
        'erasure confirmation of no known erasure or participant ignored',
      );
  });
}
