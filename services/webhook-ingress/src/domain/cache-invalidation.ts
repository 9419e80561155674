import { hostname } from 'node:os';
import {
  ERASE_REQUESTED,
  ERASURE_TOPIC,
  ORG_ERASE_REQUESTED,
  ORG_ERASURE_TOPIC,
  type EventBus,
  type Subscription,
} from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';

/** flows: flow.published, flow.unpublished, flow.updated, naming the connections concerned. */
export const FLOWS_TOPIC = 'svc.flows.flows.v1';
/** contacts: contact.created, contact.updated (identities, including a chat it now owns), naming the contact. */
export const PEOPLE_TOPIC = 'svc.contacts.people.v1';

export interface CacheInvalidation {
  flowsChanged(orgId: string, connectionId: string): void;
  contactChanged(orgId: string, contactId: string): void;
  /** The org is being deprovisioned: nothing cached about it may be used again. */
  orgErased(orgId: string): void;
}

/**
 * Feeds the ingress caches' evictions (docs/decisions/0015; an erasure's request too, 0172). Every replica must hear every change (each has its own
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
    topics: [FLOWS_TOPIC, PEOPLE_TOPIC, ERASURE_TOPIC, ORG_ERASURE_TOPIC].map((topic) => topicPrefix + topic),
    awaitAssignment: true,
    handle: async (record) => {
      const envelope = Envelope.decode(record.value);
      for (const connectionId of envelope.flow?.connectionIds ?? [])
        invalidate.flowsChanged(envelope.orgId, connectionId);
      if (envelope.contact?.contactId) invalidate.contactChanged(envelope.orgId, envelope.contact.contactId);
      // An erased contact is unknown to contacts from its request on: no replica may keep resolving to it (0172).
      if (envelope.type === ERASE_REQUESTED && envelope.erasure?.contactId)
        invalidate.contactChanged(envelope.orgId, envelope.erasure.contactId);
      if (envelope.type === ORG_ERASE_REQUESTED) invalidate.orgErased(envelope.orgId);
    },
  });
}
