import { ApiScope, Forbidden, OrgKind, requireOrg, requireScope, type Principal } from '@svc/kit';

/**
 * Who may administer a provider's partner resources (spec 4.2, 5.1 points 2 and 6): a principal of a TECH_PROVIDER
 * org holding PARTNER_ADMIN, an API key minted with it or a member session whose role grants it (identity's
 * role-scopes: owners and admins of a provider). Acting as a client org (`X-Svc-Org`) drops PARTNER_ADMIN and names
 * the client's kind, so it is refused here too. The gateway checks the same before routing; this is the service's own
 * line. Answers the provider org's id.
 */
export function requirePartnerAdmin(principal: Principal): string {
  const orgId = requireOrg(principal);
  if (principal.orgKind !== OrgKind.TECH_PROVIDER)
    throw new Forbidden('partner administration is available only to TECH_PROVIDER orgs', {
      scope: ApiScope.PARTNER_ADMIN,
    });
  requireScope(principal, ApiScope.PARTNER_ADMIN);
  return orgId;
}
