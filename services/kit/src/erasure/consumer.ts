import type { DataSource, EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import { Envelope, type ErasureEvent } from '@svc/proto/events/v1';
import type { EventBus, Subscription } from '../bus/bus';
import { enqueueEvents, type NewEvent, type OutboxRelay } from '../bus/outbox';
import { consumeEvents } from '../tracing/event-consumer';
import {
  ERASE_REQUESTED,
  ERASURE_TOPIC,
  type ContactErasure,
  type ErasedPart,
  type ErasureKindCount,
  type ErasurePart,
} from './contract';
import { eraseConfirmedEvent } from './events';

/** The consumer group of a participant's erasure consumer (prefixed like the topic). */
export function erasureGroupOf(service: string): string {
  return `${service}.erasure`;
}

/**
 * One participant's step of an erasure saga: `erase` and the confirmation it answers enqueued in ONE transaction of
 * its own database, so either both happen or neither (a crash redelivers the request); `afterCommit` then runs the
 * work outside the database. Answers what the part erased.
 */
export async function runErasureStep(
  dataSource: DataSource,
  erase: (manager: EntityManager) => Promise<ErasedPart>,
  confirmation: (counts: readonly ErasureKindCount[]) => NewEvent,
): Promise<ErasedPart> {
  const erased = await dataSource.transaction(async (manager) => {
    const done = await erase(manager);
    await enqueueEvents(manager, [confirmation(done.counts)]);
    return done;
  });
  await erased.afterCommit?.();
  return erased;
}

/** One participant's erasure of one contact (`runErasureStep` confirming `contact.erase_confirmed`). */
export function runErasure(dataSource: DataSource, part: ErasurePart, erasure: ContactErasure): Promise<ErasedPart> {
  return runErasureStep(
    dataSource,
    (manager) => part.erase(manager, erasure),
    (counts) => eraseConfirmedEvent(erasure, part.service, counts),
  );
}

/** The erasure an `contact.erase_requested` record asks for, or undefined for any other record on the topic. */
export function requestedErasureOf(envelope: Envelope): ContactErasure | undefined {
  const erasure = envelope.erasure;
  if (envelope.type !== ERASE_REQUESTED || !erasure?.erasureId || !erasure.contactId || !envelope.orgId)
    return undefined;
  return { erasureId: erasure.erasureId, orgId: envelope.orgId, contactId: erasure.contactId };
}

/** Where a saga's consumer reads: one event type on one erasure topic (contacts' or identity's). */
export interface ErasureEventSource {
  /** The topic without the installation's prefix (ERASURE_TOPIC, ORG_ERASURE_TOPIC). */
  topic: string;
  /** The consumer group without the prefix. */
  group: string;
  /** The one event type handled; any other record on the topic is skipped. */
  type: string;
}

/**
 * Subscribes `source.group` (prefixed like the topic) to the events of one type on an erasure topic, from the
 * beginning: an event sent while the consumer was down or not yet deployed is handled when it starts. Each is handled
 * as the continuation of the request that recorded it; a throw redelivers it.
 */
export function subscribeErasureTopic(
  bus: EventBus,
  topicPrefix: string,
  source: ErasureEventSource,
  handle: (envelope: Envelope, event: ErasureEvent) => Promise<void>,
): Promise<Subscription> {
  const from = { groupId: topicPrefix + source.group, topic: topicPrefix + source.topic };
  return bus.subscribe({
    groupId: from.groupId,
    topics: [from.topic],
    fromBeginning: true,
    handle: async (record) => {
      const envelope = Envelope.decode(record.value);
      const event = envelope.erasure;
      if (envelope.type !== source.type || !event) return;
      await consumeEvents([envelope], from, () => handle(envelope, event));
    },
  });
}

/** `subscribeErasureTopic` on the contact erasure topic (svc.contacts.erasure.v1). */
export function subscribeErasureEvents(
  bus: EventBus,
  topicPrefix: string,
  group: string,
  type: string,
  handle: (envelope: Envelope, event: ErasureEvent) => Promise<void>,
): Promise<Subscription> {
  return subscribeErasureTopic(bus, topicPrefix, { topic: ERASURE_TOPIC, group, type }, handle);
}

/**
 * Subscribes a participant to `contact.erase_requested` (group `<service>.erasure`). Each request runs `runErasure`; a
 * redelivered one erases nothing more and confirms zeros (contacts keeps the first confirmation). A failure throws:
 * the bus retries the record, and the erasure stays IN_PROGRESS until it succeeds.
 */
export function subscribeErasure(
  bus: EventBus,
  dataSource: DataSource,
  relay: OutboxRelay,
  part: ErasurePart,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  return subscribeErasureEvents(bus, topicPrefix, erasureGroupOf(part.service), ERASE_REQUESTED, async (envelope) => {
    const erasure = requestedErasureOf(envelope);
    if (!erasure) return;
    const erased = await runErasure(dataSource, part, erasure);
    relay.nudge();
    // Ids and counts only: what was erased is personal data, how much of it is not.
    logger.info({ erasureId: erasure.erasureId, counts: erased.counts }, 'contact erasure: part erased');
  });
}
