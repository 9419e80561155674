import type { NewEvent } from '@svc/kit';

export const RECEIVED_TOPIC = 'svc.webhooks.received.v1';

export function webhookReceivedEvent(event: {
  orgId: string;
  requestId: string;
  connectionId: string;
  contactId: string;
  chatId: string;
  payloadJson: string;
  flowIds: string[];
}): NewEvent {
  return {
    topic: RECEIVED_TOPIC,
    key: event.connectionId,
    type: 'webhook.received',
    orgId: event.orgId,
    payload: {
      webhookReceived: {
        requestId: event.requestId,
        connectionId: event.connectionId,
        contactId: event.contactId,
        chatId: event.chatId,
        payloadJson: event.payloadJson,
        flowIds: event.flowIds,
      },
    },
  };
}
