import type { Route } from './route';

export const channelsDeliveryRoutes: Record<string, Route> = {
  retryFailedMessage: { service: 'channelsDelivery', method: 'RetryFailedMessage' },
};
