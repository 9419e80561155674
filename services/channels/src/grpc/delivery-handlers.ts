import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { DeliveryServiceService } from '@svc/proto/channels/v1/delivery';
import type { FailedMessageRetries } from '../delivery/retry';

export function deliveryService(retries: FailedMessageRetries, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof DeliveryServiceService> = {
    retryFailedMessage: (request, { principal }) => retries.retry(principal, request.messageId),
  };
  return implement('channels', DeliveryServiceService, handlers, deps);
}
