import { consumeEvents, type DeliveredRecord, type EventBus, type Logger, type Subscription } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import type { Fanout } from './fanout';
import { FANOUT_TOPICS, partnerEventOf } from './mapping';

/** One group shared by every partner replica: each event is fanned out by one of them. */
export const FANOUT_GROUP = 'partner.fanout';

/**
 * Consumes the inbox, contacts, erasure and channels topics into deliveries. A batch (a backlog, a burst) is one
 * transaction; the deliveries are committed before the records are, so nothing consumed is lost (a crash redelivers
 * the records, and the unique `(webhook_id, event_id)` makes that harmless).
 */
export function subscribeFanout(
  bus: EventBus,
  fanout: Fanout,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  const groupId = topicPrefix + FANOUT_GROUP;
  const handleBatch = async (records: DeliveredRecord[]) => {
    const envelopes = records.map((record) => Envelope.decode(record.value));
    const events = envelopes.flatMap((envelope) => partnerEventOf(envelope) ?? []);
    if (!events.length) return;
    await consumeEvents(envelopes, { groupId, topic: records[0]?.topic ?? '' }, async () => {
      const created = await fanout.record(events);
      if (created) logger.debug({ events: events.length, created }, 'partner deliveries created');
    });
  };
  return bus.subscribe({
    // Prefixed like the topics: installations (and test runs) sharing a cluster must not share consumer groups.
    groupId,
    topics: FANOUT_TOPICS.map((topic) => topicPrefix + topic),
    fromBeginning: true,
    handle: (record) => handleBatch([record]),
    handleBatch,
  });
}
