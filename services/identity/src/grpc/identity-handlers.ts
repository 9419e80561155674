import {
  CLIENT_ADDRESS_HEADER,
  implement,
  requireAnonymous,
  requireSystem,
  type ServiceHandlers,
  type ImplementDeps,
} from '@svc/kit';
import { IdentityServiceService } from '@svc/proto/identity/v1';
import type { Authentication } from '../domain/authentication';
import type { ApiKeys } from '../domain/api-keys';
import type { Team } from '../domain/team';
import { orgView } from '../domain/views';
import { OrgRow } from '../entities';
import type { DataSource } from 'typeorm';
import { NotFound } from '@svc/kit';

export interface IdentityDomain {
  dataSource: DataSource;
  authentication: Authentication;
  apiKeys: ApiKeys;
  team: Team;
}

export function identityService(domain: IdentityDomain, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof IdentityServiceService> = {
    authenticate: async (request, { principal }) => {
      requireSystem(principal);
      return domain.authentication.authenticate(request.credential, request.actAsOrgId);
    },
    login: async (request, { principal, metadata }) => {
      requireAnonymous(principal);
      // Only the gateway presents ANONYMOUS (kit trust/policy.ts); it names the address the attempt came from.
      const address = metadata.get(CLIENT_ADDRESS_HEADER)[0];
      return domain.authentication.login(request.email, request.password, typeof address === 'string' ? address : '');
    },
    logout: async (_request, { principal }) => {
      await domain.authentication.logout(principal);
      return { ok: true };
    },
    mintOrgApiKey: (request, { principal }) => domain.apiKeys.mint(principal, request.name, request.scopes),
    listOrgApiKeys: async (_request, { principal }) => ({ keys: await domain.apiKeys.list(principal) }),
    revokeOrgApiKey: (request, { principal }) => domain.apiKeys.revoke(principal, request.keyId),
    listTeamMembers: async (_request, { principal }) => ({ members: await domain.team.list(principal) }),
    addMemberDirect: (request, { principal }) => domain.team.add(principal, request),
    updateMemberRole: (request, { principal }) => domain.team.updateRole(principal, request.memberId, request.role),
    removeMember: async (request, { principal }) => {
      await domain.team.remove(principal, request.memberId);
      return { ok: true };
    },
    findMembers: async (request, { principal }) => ({
      memberIds: await domain.team.find(principal, request.memberIds),
    }),
    getOrg: async (_request, { principal }) => {
      const org = await domain.dataSource.getRepository(OrgRow).findOneBy({ id: principal.orgId });
      if (!org) throw new NotFound('org not found');
      return orgView(org);
    },
    getOrgBySlug: async (request, { principal }) => {
      requireSystem(principal);
      const org = request.slug ? await domain.dataSource.getRepository(OrgRow).findOneBy({ slug: request.slug }) : null;
      if (!org) throw new NotFound('org not found', { field: 'slug' });
      return orgView(org);
    },
  };
  return implement('identity', IdentityServiceService, handlers, { ...deps, anonymous: ['login'] });
}
