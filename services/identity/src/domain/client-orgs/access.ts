import { Forbidden, InvalidArgument, NotFound, isId, requireScope, type Principal } from '@svc/kit';
import { ApiScope, OrgKind } from '@svc/proto/common/v1';
import type { EntityManager } from 'typeorm';
import { OrgRow } from '../../entities';

/**
 * Who may manage client orgs (spec 4.2, docs/decisions/0213-client-org-access.md): the caller's org is a TECH_PROVIDER
 * and the principal holds PARTNER_ADMIN: a key minted with it, or an owner or admin session of the provider org
 * (`scopesOfRole`). Acting as a client org (X-Svc-Org) drops PARTNER_ADMIN and the provider kind, so it is refused.
 * Answers the provider org id.
 */
export function requireProvider(principal: Principal): string {
  if (principal.orgKind !== OrgKind.TECH_PROVIDER)
    throw new Forbidden('client orgs are managed only by TECH_PROVIDER orgs', { scope: ApiScope.PARTNER_ADMIN });
  requireScope(principal, ApiScope.PARTNER_ADMIN);
  return principal.orgId;
}

/** A client org argument, checked (BAD_USER_INPUT naming `id`). */
export function checkClientOrgId(id: string): string {
  if (!isId(id)) throw new InvalidArgument('id must be a 24-character hex id', { field: 'id' });
  return id;
}

/**
 * A client org of the provider, or NOT_FOUND worded the same for an unknown id, a sibling provider's client and any
 * org that is not a child of this provider. `lock`: held until the transaction ends (MySQL family; SQLite serialises
 * writers anyway).
 */
export async function requireClientOrg(
  manager: EntityManager,
  providerOrgId: string,
  id: string,
  lock: boolean,
): Promise<OrgRow> {
  const org = await manager.findOne(OrgRow, {
    where: { id: checkClientOrgId(id), parentOrgId: providerOrgId },
    ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!org) throw new NotFound('client org not found', { field: 'id' });
  return org;
}
