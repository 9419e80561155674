import type { Route } from './route';

type Json = Record<string, unknown>;

/** Repeated fields the service leaves out when empty come back as empty lists. */
const clientOrg = (org: Json): Json => ({
  ...org,
  deprovisioning: ((org.deprovisioning as Json[] | undefined) ?? []).map((p) => ({ ...p, counts: p.counts ?? [] })),
});

export const partnerClientOrgRoutes: Record<string, Route> = {
  createClientOrg: {
    service: 'identityClientOrgs',
    method: 'CreateClientOrg',
    response: (result) => ({ ...result, org: clientOrg(result.org as Json) }),
  },
  deprovisionClientOrg: {
    service: 'identityClientOrgs',
    method: 'DeprovisionClientOrg',
    response: clientOrg,
    effect: 'evict-org',
  },
  clientOrgs: {
    service: 'identityClientOrgs',
    method: 'ListClientOrgs',
    response: (result) => ({
      data: ((result.data as Json[] | undefined) ?? []).map(clientOrg),
      totalCount: result.totalCount ?? 0,
      hasMore: result.hasMore ?? false,
    }),
  },
};
