import type { DataSource, EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import type { Envelope } from '@svc/proto/events/v1';
import type { Subscription, EventBus } from '../bus/bus';
import type { OutboxRelay } from '../bus/outbox';
import { ORG_ERASE_REQUESTED, ORG_ERASURE_TOPIC, type ErasedPart, type OrgErasureParticipantName } from './contract';
import { runErasureStep, subscribeErasureTopic } from './consumer';
import { orgEraseConfirmedEvent, type OrgErasure } from './org-events';

/**
 * One service's part of erasing a whole client org (docs/erasure.md "Erasing an org"): like `ErasurePart`, without a
 * preview (a deprovisioning deletes everything of the org; nobody chooses from a list).
 */
export interface OrgErasurePart {
  readonly service: OrgErasureParticipantName;
  /**
   * Deletes the org's data in this service's database inside `manager`'s transaction; the chassis writes
   * `org.erase_confirmed` in the same transaction. Idempotent: a redelivered request finds nothing and confirms zeros.
   */
  erase(manager: EntityManager, erasure: OrgErasure): Promise<ErasedPart>;
}

/** The consumer group of a participant's org erasure consumer (prefixed like the topic). */
export function orgErasureGroupOf(service: string): string {
  return `${service}.org-erasure`;
}

/** One participant's erasure of one org: its part and `org.erase_confirmed` in one transaction, then `afterCommit`. */
export function runOrgErasure(dataSource: DataSource, part: OrgErasurePart, erasure: OrgErasure): Promise<ErasedPart> {
  return runErasureStep(
    dataSource,
    (manager) => part.erase(manager, erasure),
    (counts) => orgEraseConfirmedEvent(erasure, part.service, counts),
  );
}

/** The erasure an `org.erase_requested` record asks for, or undefined for any other record on the topic. */
export function requestedOrgErasureOf(envelope: Envelope): OrgErasure | undefined {
  const erasure = envelope.erasure;
  if (envelope.type !== ORG_ERASE_REQUESTED || !erasure?.erasureId || !envelope.orgId) return undefined;
  return { erasureId: erasure.erasureId, orgId: envelope.orgId };
}

/**
 * Subscribes a participant to `org.erase_requested` (group `<service>.org-erasure`, from the beginning). Each request
 * runs `runOrgErasure`; a redelivered one deletes nothing more and confirms zeros. A failure throws: the bus retries
 * the record, and the org stays DEPROVISIONING until every participant confirmed.
 */
export function subscribeOrgErasure(
  bus: EventBus,
  dataSource: DataSource,
  relay: OutboxRelay,
  part: OrgErasurePart,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  const source = { topic: ORG_ERASURE_TOPIC, group: orgErasureGroupOf(part.service), type: ORG_ERASE_REQUESTED };
  return subscribeErasureTopic(bus, topicPrefix, source, async (envelope) => {
    const erasure = requestedOrgErasureOf(envelope);
    if (!erasure) return;
    const erased = await runOrgErasure(dataSource, part, erasure);
    relay.nudge();
    logger.info(
      { erasureId: erasure.erasureId, orgId: erasure.orgId, counts: erased.counts },
      'org erasure: part erased',
    );
  });
}
