import { hostname } from 'node:os';
import type { EventBus, Subscription } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';

/** flows: flow.published, flow.unpublished, flow.updated, naming the connections concerned. */
export const FLOWS_TOPIC = 'svc.flows.flows.v1';
/** contacts: contact.created, contact.updated (identities, including a chat it now owns), naming the contact. */
export const PEOPLE_TOPIC = 'svc.contacts.people.v1';

export interface CacheInvalidation {
  flowsChanged(orgId: string, connectionId: string): void;
  contactChanged(orgId: string, contactId: string): void;
}

/**
 * Feeds the ingress caches' evictions (docs/decisions/0015). Every replica must hear every change (each has its own
 * caches), so each subscribes in a consumer group of its own, from the latest offset: a replica starting now has
 * nothing cached yet, and it serves only once it is assigned, so no change published meanwhile is missed.
 */
export function subscribeCacheInvalidation(
  bus: EventBus,
  topicPrefix: string,
  invalidate: CacheInvalidation,
): Promise<Subscription> {
  return bus.subscribe({
    groupId: `${topicPrefix}webhook-ingress.cache-invalidation.${hostname()}-${process.pid}`,
    topics: [topicPrefix + FLOWS_TOPIC, topicPrefix + PEOPLE_TOPIC],
    awaitAssignment: true,
    handle: async (record) => {
      const envelope = Envelope.decode(record.value);
      for (const connectionId of envelope.flow?.connectionIds ?? [])
        invalidate.flowsChanged(envelope.orgId, connectionId);
      if (envelope.contact?.contactId) invalidate.contactChanged(envelope.orgId, envelope.contact.contactId);
    },
  });
}
