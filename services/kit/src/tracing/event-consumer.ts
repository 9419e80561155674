import { SpanKind } from '@opentelemetry/api';
import type { Envelope } from '@svc/proto/events/v1';
import { continueRequests } from './request-context';

/**
 * Handles consumed events as the continuation of the requests that recorded them (`continueRequests`): a consumer
 * span `process <topic>`, the child of the request's span (one event) or linked to each (a batch), with its
 * x-request-id on every log line.
 */
export function consumeEvents<T>(
  envelopes: Pick<Envelope, 'requestContext'>[],
  source: { topic: string; groupId: string },
  work: () => Promise<T>,
): Promise<T> {
  return continueRequests(
    envelopes.map((envelope) => envelope.requestContext),
    {
      name: `process ${source.topic}`,
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.operation.type': 'process',
        'messaging.destination.name': source.topic,
        'messaging.consumer.group.name': source.groupId,
        'messaging.batch.message_count': envelopes.length,
      },
    },
    work,
  );
}
