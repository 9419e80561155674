import type { NewEvent } from '../bus/outbox';
import {
  ERASE_CONFIRMED,
  ERASE_REQUESTED,
  ERASURE_TOPIC,
  type ContactErasure,
  type ErasureKindCount,
} from './contract';

/** `contact.erase_requested`: contacts asks every participant to erase its part (ids only). */
export function eraseRequestedEvent(erasure: ContactErasure): NewEvent {
  return {
    topic: ERASURE_TOPIC,
    key: erasure.contactId,
    type: ERASE_REQUESTED,
    orgId: erasure.orgId,
    payload: { erasure: { erasureId: erasure.erasureId, contactId: erasure.contactId, service: '', counts: [] } },
  };
}

/** `contact.erase_confirmed`: `service` erased its part of `erasure`, `counts` by kind. */
export function eraseConfirmedEvent(
  erasure: ContactErasure,
  service: string,
  counts: readonly ErasureKindCount[],
): NewEvent {
  return {
    topic: ERASURE_TOPIC,
    key: erasure.contactId,
    type: ERASE_CONFIRMED,
    orgId: erasure.orgId,
    payload: {
      erasure: {
        erasureId: erasure.erasureId,
        contactId: erasure.contactId,
        service,
        counts: counts.map(({ kind, count }) => ({ kind, count })),
      },
    },
  };
}

/**
 * Every kind of a part, in the order given, with its count (zero when absent): previews and confirmations list
 * every kind, so a reader sees what a service looked for as well as what it found.
 */
export function kindCounts(kinds: readonly string[], found: Partial<Record<string, number>>): ErasureKindCount[] {
  return kinds.map((kind) => ({ kind, count: found[kind] ?? 0 }));
}
