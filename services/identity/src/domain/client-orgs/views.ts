import { ORG_ERASURE_PARTICIPANTS, toIso, toIsoOrUndefined } from '@svc/kit';
import { ClientOrgStatus, type ClientOrg } from '@svc/proto/identity/v1/client_orgs';
import type { OrgErasureConfirmationRow, OrgRow } from '../../entities';

/** A client org with its deprovisioning's progress: every participant in the contract's order once it started. */
export function clientOrgView(row: OrgRow, confirmations: readonly OrgErasureConfirmationRow[]): ClientOrg {
  const byService = new Map(confirmations.map((c) => [c.service, c]));
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    status: row.status,
    createdAt: toIso(row.createdAt),
    deprovisionRequestedAt: toIsoOrUndefined(row.deprovisionRequestedAt),
    deprovisionedAt: toIsoOrUndefined(row.deprovisionedAt),
    deprovisioning:
      row.status === ClientOrgStatus.ACTIVE
        ? []
        : ORG_ERASURE_PARTICIPANTS.map((service) => {
            const confirmation = byService.get(service);
            return {
              service,
              confirmed: Boolean(confirmation),
              confirmedAt: toIsoOrUndefined(confirmation?.confirmedAt),
              counts: confirmation?.counts ?? [],
            };
          }),
  };
}
