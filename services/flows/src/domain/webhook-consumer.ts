import type { DeliveredRecord, EventBus, Logger, Subscription } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import type { Runs, WebhookDelivery } from './runs';

export const RECEIVED_TOPIC = 'svc.webhooks.received.v1';
/** One group shared by every flows replica: each accepted request is handled by one of them. */
export const WEBHOOK_CONSUMER_GROUP = 'flows.webhook-received';

function deliveryOf(record: DeliveredRecord): WebhookDelivery[] {
  const envelope = Envelope.decode(record.value);
  if (envelope.type !== 'webhook.received' || !envelope.webhookReceived) return [];
  return [{ eventId: envelope.id, orgId: envelope.orgId, event: envelope.webhookReceived }];
}

/** A backlog (the consumer was stopped, or flows fell behind a burst) is consumed in batches, one transaction each. */
export function subscribeWebhooks(
  bus: EventBus,
  runs: Runs,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  const handleBatch = async (records: DeliveredRecord[]) => {
    const created = await runs.startFromWebhooks(records.flatMap(deliveryOf));
    logger.debug({ events: records.length, created }, 'webhook.received handled');
  };
  return bus.subscribe({
    // Prefixed like the topics: installations (and test runs) sharing a cluster must not share consumer groups.
    groupId: topicPrefix + WEBHOOK_CONSUMER_GROUP,
    topics: [topicPrefix + RECEIVED_TOPIC],
    fromBeginning: true,
    handle: (record) => handleBatch([record]),
    handleBatch,
  });
}
