import { consumeEvents, type DeliveredRecord, type EventBus, type Logger, type Subscription } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import type { Runs, WebhookDelivery } from './runs';

export const RECEIVED_TOPIC = 'svc.webhooks.received.v1';
/** One group shared by every flows replica: each accepted request is handled by one of them. */
export const WEBHOOK_CONSUMER_GROUP = 'flows.webhook-received';

function deliveryOf(record: DeliveredRecord): WebhookDelivery[] {
  const envelope = Envelope.decode(record.value);
  if (envelope.type !== 'webhook.received' || !envelope.webhookReceived) return [];
  return [
    {
      eventId: envelope.id,
      orgId: envelope.orgId,
      event: envelope.webhookReceived,
      requestContext: envelope.requestContext,
    },
  ];
}

/** A backlog (the consumer was stopped, or flows fell behind a burst) is consumed in batches, one transaction each. */
export function subscribeWebhooks(
  bus: EventBus,
  runs: Runs,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  const source = {
    // Prefixed like the topics: installations (and test runs) sharing a cluster must not share consumer groups.
    groupId: topicPrefix + WEBHOOK_CONSUMER_GROUP,
    topic: topicPrefix + RECEIVED_TOPIC,
  };
  const handleBatch = async (records: DeliveredRecord[]) => {
    const deliveries = records.flatMap(deliveryOf);
    // In the trace of the accepted request(s), under their x-request-id.
    await consumeEvents(deliveries, source, async () => {
      const created = await runs.startFromWebhooks(deliveries);
      logger.debug({ events: records.length, created }, 'webhook.received handled');
    });
  };
  return bus.subscribe({
    groupId: source.groupId,
    topics: [source.topic],
    fromBeginning: true,
    handle: (record) => handleBatch([record]),
    handleBatch,
  });
}
