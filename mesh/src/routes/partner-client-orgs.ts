import type { Route } from './route';

type Json = Record<string, unknown>;

/**
 * Repeated fields the service leaves out when empty come back as empty lists. Only what the client selected is asked
 * for, so any part may be absent.
 */
const clientOrg = (org: Json | undefined): Json | undefined =>
  org && {
    ...org,
    deprovisioning: ((org.deprovisioning as Json[] | undefined) ?? []).map((p) => ({ ...p, counts: p.counts ?? [] })),
  };

export const partnerClientOrgRoutes: Record<string, Route> = {
  createClientOrg: {
    service: 'identityClientOrgs',
    method: 'CreateClientOrg',
    response: (result) => ({ ...result, org: clientOrg(result.org as Json | undefined) }),
  },
  deprovisionClientOrg: {
    service: 'identityClientOrgs',
    method: 'DeprovisionClientOrg',
    response: (result) => clientOrg(result),
    effect: 'evict-org',
  },
  clientOrgs: {
    service: 'identityClientOrgs',
    method: 'ListClientOrgs',
    response: (result) => ({
      data: ((result.data as Json[] | undefined) ?? []).map((org) => clientOrg(org)),
      totalCount: result.totalCount ?? 0,
      hasMore: result.hasMore ?? false,
    }),
  },
};
