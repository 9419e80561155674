import {
  ORG_ERASE_CONFIRMED,
  ORG_ERASURE_TOPIC,
  subscribeErasureTopic,
  type EventBus,
  type Logger,
  type Subscription,
} from '@svc/kit';
import type { ClientOrgs } from './client-orgs';

export const ORG_ERASURE_RECEIPTS_GROUP = 'identity.org-erasure-receipts';

/**
 * Records every participant's `org.erase_confirmed` on its client org (from the beginning: a confirmation sent while
 * identity was down is recorded when it is back). Idempotent: the first confirmation of each participant is kept.
 */
export function subscribeOrgErasureReceipts(
  bus: EventBus,
  clientOrgs: ClientOrgs,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  const source = { topic: ORG_ERASURE_TOPIC, group: ORG_ERASURE_RECEIPTS_GROUP, type: ORG_ERASE_CONFIRMED };
  return subscribeErasureTopic(bus, topicPrefix, source, async (envelope, event) => {
    const recorded = await clientOrgs.confirm(
      envelope.orgId,
      event.erasureId,
      event.service,
      event.counts,
      new Date(envelope.occurredAt || Date.now()),
    );
    if (!recorded)
      logger.warn(
        { orgId: envelope.orgId, erasureId: event.erasureId, service: event.service },
        'org erasure confirmation of no known deprovisioning or participant ignored',
      );
  });
}
