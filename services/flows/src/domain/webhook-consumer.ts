import type { EventBus, Logger, Subscription } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import type { Runs } from './runs';

export const RECEIVED_TOPIC = 'svc.webhooks.received.v1';
/** One group shared by every flows replica: each accepted request is handled by one of them. */
export const WEBHOOK_CONSUMER_GROUP = 'flows.webhook-received';

export function subscribeWebhooks(
  bus: EventBus,
  runs: Runs,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  return bus.subscribe({
    // Prefixed like the topics: installations (and test runs) sharing a cluster must not share consumer groups.
    groupId: topicPrefix + WEBHOOK_CONSUMER_GROUP,
    topics: [topicPrefix + RECEIVED_TOPIC],
    fromBeginning: true,
    handle: async (record) => {
      const envelope = Envelope.decode(record.value);
      if (envelope.type !== 'webhook.received' || !envelope.webhookReceived) return;
      const created = await runs.startFromWebhook(envelope.id, envelope.orgId, envelope.webhookReceived);
      logger.debug({ eventId: envelope.id, created }, 'webhook.received handled');
    },
  });
}
