import type { NewEvent } from '../bus/outbox';
import { ORG_ERASE_CONFIRMED, ORG_ERASE_REQUESTED, ORG_ERASURE_TOPIC, type ErasureKindCount } from './contract';

/** One requested deprovisioning of a client org, as every participant receives it. */
export interface OrgErasure {
  erasureId: string;
  /** The client org whose data goes. */
  orgId: string;
}

/** `org.erase_requested`: identity asks every participant to delete the org's rows (ids only). */
export function orgEraseRequestedEvent(erasure: OrgErasure): NewEvent {
  return {
    topic: ORG_ERASURE_TOPIC,
    key: erasure.orgId,
    type: ORG_ERASE_REQUESTED,
    orgId: erasure.orgId,
    payload: { erasure: { erasureId: erasure.erasureId, contactId: '', service: '', counts: [] } },
  };
}

/** `org.erase_confirmed`: `service` deleted its part of the org, `counts` by kind. */
export function orgEraseConfirmedEvent(
  erasure: OrgErasure,
  service: string,
  counts: readonly ErasureKindCount[],
): NewEvent {
  return {
    topic: ORG_ERASURE_TOPIC,
    key: erasure.orgId,
    type: ORG_ERASE_CONFIRMED,
    orgId: erasure.orgId,
    payload: {
      erasure: {
        erasureId: erasure.erasureId,
        contactId: '',
        service,
        counts: counts.map(({ kind, count }) => ({ kind, count })),
      },
    },
  };
}
