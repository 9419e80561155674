import { ORG_ERASE_CONFIRMED, ORG_ERASURE_TOPIC, subscribeErasureReceipts } from '@svc/kit';
import type { EventBus, Logger, Subscription } from '@svc/kit';
import type { ClientOrgs } from './client-orgs';

export const ORG_ERASURE_RECEIPTS_GROUP = 'identity.org-erasure-receipts';

/**
 * Records every participant's `org.erase_confirmed` on its client org (kit's `subscribeErasureReceipts`: from the
 * beginning, the first confirmation of each participant kept).
 */
export function subscribeOrgErasureReceipts(
  bus: EventBus,
  clientOrgs: ClientOrgs,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  const source = { topic: ORG_ERASURE_TOPIC, group: ORG_ERASURE_RECEIPTS_GROUP, type: ORG_ERASE_CONFIRMED };
  const ignored = 'org erasure confirmation of no known deprovisioning or participant ignored';
  return subscribeErasureReceipts(bus, topicPrefix, source, clientOrgs, logger, ignored);
}
