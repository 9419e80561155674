import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { PartnerUsageServiceService } from '@svc/proto/partner/v1/partner_usage';
import type { UsageReports } from '../domain/usage/reports';

export const PARTNER_USAGE_GRPC_SERVICE = 'svc.partner.v1.PartnerUsageService';

export function partnerUsageService(reports: UsageReports, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof PartnerUsageServiceService> = {
    getPartnerUsageSummary: (request, { principal }) => reports.summary(principal, request.clientOrgId),
    getPartnerUsageHistory: async (request, { principal }) => ({
      periods: await reports.history(principal, request.clientOrgId, request.from, request.to),
    }),
  };
  return implement('partner', PartnerUsageServiceService, handlers, deps);
}
