import { ERASE_CONFIRMED, ERASURE_TOPIC, subscribeErasureReceipts as subscribeReceipts } from '@svc/kit';
import type { EventBus, Logger, Subscription } from '@svc/kit';
import type { Erasures } from './receipts';

export const ERASURE_RECEIPTS_GROUP = 'contacts.erasure-receipts';

/**
 * Records every participant's `contact.erase_confirmed` on its erasure's receipt (kit's `subscribeErasureReceipts`:
 * from the beginning, the first confirmation of each participant kept).
 */
export function subscribeErasureReceipts(
  bus: EventBus,
  erasures: Erasures,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  const source = { topic: ERASURE_TOPIC, group: ERASURE_RECEIPTS_GROUP, type: ERASE_CONFIRMED };
  return subscribeReceipts(
    bus,
    topicPrefix,
    source,
    erasures,
    logger,
    'erasure confirmation of no known erasure or participant ignored',
  );
}
