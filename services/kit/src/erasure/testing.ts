import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { DataSource } from 'typeorm';
import { Envelope } from '@svc/proto/events/v1';
import type { EventBus, Subscription } from '../bus/bus';
import type { NewEvent } from '../bus/outbox';
import { newId } from '../ids';
import { eventually } from '../testing';
import {
  ERASE_CONFIRMED,
  ERASURE_TOPIC,
  type ContactErasure,
  type ErasureKindCount,
  type ErasurePart,
} from './contract';
import { runErasure } from './consumer';
import { eraseConfirmedEvent, eraseRequestedEvent } from './events';

/** A new erasure of `contactId` in `orgId` (tests of a participant's part). */
export function testErasure(orgId: string, contactId: string): ContactErasure {
  return { erasureId: newId(), orgId, contactId };
}

/** Publishes one event straight to the bus, as an outbox relay would (tests standing in for a service). */
export async function publishNow(bus: EventBus, topicPrefix: string, event: NewEvent): Promise<void> {
  const envelope: Envelope = {
    ...event.payload,
    id: newId(),
    type: event.type,
    orgId: event.orgId,
    occurredAt: new Date().toISOString(),
    requestContext: {},
  };
  await bus.publish([
    { topic: topicPrefix + event.topic, key: event.key, value: Buffer.from(Envelope.encode(envelope).finish()) },
  ]);
}

/** Publishes `contact.erase_requested`, as contacts would (tests of a participant's consumer). */
export function publishEraseRequest(bus: EventBus, topicPrefix: string, erasure: ContactErasure): Promise<void> {
  return publishNow(bus, topicPrefix, eraseRequestedEvent(erasure));
}

/** Publishes `contact.erase_confirmed`, as participant `service` would (tests of contacts' receipts). */
export function publishEraseConfirmation(
  bus: EventBus,
  topicPrefix: string,
  erasure: ContactErasure,
  service: string,
  counts: readonly ErasureKindCount[],
): Promise<void> {
  return publishNow(bus, topicPrefix, eraseConfirmedEvent(erasure, service, counts));
}

export interface ErasureConfirmation {
  erasureId: string;
  orgId: string;
  service: string;
  counts: ErasureKindCount[];
}

/** Collects every `contact.erase_confirmed` on the bus (a group of its own, from the beginning). */
export class ErasureConfirmations {
  readonly received: ErasureConfirmation[] = [];
  private subscription: Subscription | undefined;

  /** `source`: the topic and confirmation type read (default the contact erasure's; `orgErasureConfirmations()`). */
  constructor(private readonly source = { topic: ERASURE_TOPIC, type: ERASE_CONFIRMED }) {}

  async start(bus: EventBus, topicPrefix: string): Promise<this> {
    this.subscription = await bus.subscribe({
      groupId: `${topicPrefix}test.erasure-confirmations.${randomBytes(4).toString('hex')}`,
      topics: [topicPrefix + this.source.topic],
      fromBeginning: true,
      awaitAssignment: true,
      handle: async (record) => {
        const envelope = Envelope.decode(record.value);
        if (envelope.type !== this.source.type || !envelope.erasure) return;
        const { erasureId, service, counts } = envelope.erasure;
        this.received.push({ erasureId, orgId: envelope.orgId, service, counts });
      },
    });
    return this;
  }

  /** Every confirmation `service` sent for `erasureId` so far (redeliveries confirm again). */
  of(erasureId: string, service: string): ErasureConfirmation[] {
    return this.received.filter((c) => c.erasureId === erasureId && c.service === service);
  }

  /** The first confirmation `service` sends for `erasureId`, waiting for it up to `deadlineMs`. */
  waitFor(erasureId: string, service: string, deadlineMs = 15_000): Promise<ErasureConfirmation> {
    return eventually(
      async () => this.of(erasureId, service)[0],
      deadlineMs,
      `${service}'s confirmation of erasure ${erasureId}`,
    );
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }
}

/**
 * The contract every `ErasurePart` keeps, checked on its own data source: the preview counts what the erasure then
 * confirms, afterwards the preview finds nothing, and erasing again confirms zeros (idempotent). Answers the counts
 * of the first erasure; throws naming the broken promise.
 */
export async function checkErasurePart(
  dataSource: DataSource,
  part: ErasurePart,
  erasure: ContactErasure,
): Promise<ErasureKindCount[]> {
  const preview = await part.preview(erasure.orgId, erasure.contactId);
  const first = await runErasure(dataSource, part, erasure);
  if (!isDeepStrictEqual(first.counts, preview)) {
    throw new Error(`${part.service}: erased ${JSON.stringify(first.counts)}, previewed ${JSON.stringify(preview)}`);
  }
  const zeros = preview.map(({ kind }) => ({ kind, count: 0 }));
  const after = await part.preview(erasure.orgId, erasure.contactId);
  if (!isDeepStrictEqual(after, zeros)) {
    throw new Error(`${part.service}: after the erasure the preview still finds ${JSON.stringify(after)}`);
  }
  const again = await runErasure(dataSource, part, erasure);
  if (!isDeepStrictEqual(again.counts, zeros)) {
    throw new Error(`${part.service}: erasing again erased ${JSON.stringify(again.counts)}`);
  }
  return first.counts;
}
