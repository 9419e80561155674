import type { Route } from './route';

const SERVICE = 'partnerUsage';

export const partnerUsageRoutes: Record<string, Route> = {
  partnerUsageSummary: { service: SERVICE, method: 'GetPartnerUsageSummary' },
  partnerUsageHistory: {
    service: SERVICE,
    method: 'GetPartnerUsageHistory',
    response: (history) => history.periods ?? [],
  },
};
