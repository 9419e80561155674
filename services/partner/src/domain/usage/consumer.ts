import { consumeEvents, type DeliveredRecord, type EventBus, type Logger, type Subscription } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { usageFactOf, type UsageFact, type UsageLookups } from './facts';
import type { UsageRecorder } from './recorder';

/** The inbox's topics (services/inbox/src/domain/events.ts): messages, and chats (conversation.created). */
export const USAGE_TOPICS = ['svc.inbox.messages.v1', 'svc.inbox.chats.v1'] as const;
/** One group shared by every partner replica: each event is counted by one of them (and only once anyway). */
export const USAGE_CONSUMER_GROUP = 'partner.usage';

/**
 * Counts the inbox's events into the monthly rollup. The org and channel lookups run before the transaction; a
 * failing lookup (identity or channels down) throws, so the bus redelivers the batch and nothing is lost.
 */
export class UsageConsumer {
  constructor(
    private readonly recorder: UsageRecorder,
    private readonly lookups: UsageLookups,
    private readonly logger: Logger,
  ) {}

  /** Counts a batch; answers how many events were new. */
  async consume(envelopes: Envelope[]): Promise<number> {
    const facts = (await Promise.all(envelopes.map((envelope) => usageFactOf(envelope, this.lookups)))).filter(
      (fact): fact is UsageFact => fact !== undefined,
    );
    const counted = await this.recorder.record(facts);
    if (facts.length) this.logger.debug({ events: envelopes.length, counted }, 'usage counted');
    return counted;
  }

  subscribe(bus: EventBus, topicPrefix: string): Promise<Subscription> {
    // Prefixed like the topics: installations (and test runs) sharing a cluster must not share consumer groups.
    const groupId = topicPrefix + USAGE_CONSUMER_GROUP;
    const topics = USAGE_TOPICS.map((topic) => topicPrefix + topic);
    const handleBatch = async (records: DeliveredRecord[]) => {
      const envelopes = records.map((record) => Envelope.decode(record.value));
      const topic = records[0]?.topic ?? topics.join(',');
      await consumeEvents(envelopes, { groupId, topic }, () => this.consume(envelopes));
    };
    return bus.subscribe({
      groupId,
      topics,
      fromBeginning: true,
      handle: (record) => handleBatch([record]),
      handleBatch,
    });
  }
}
