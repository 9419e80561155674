import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { ClientOrgServiceService } from '@svc/proto/identity/v1/client_orgs';
import type { ClientOrgs } from '../domain/client-orgs/client-orgs';

export const CLIENT_ORG_GRPC_SERVICE = 'svc.identity.v1.ClientOrgService';

export function clientOrgService(clientOrgs: ClientOrgs, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof ClientOrgServiceService> = {
    createClientOrg: (request, { principal }) => clientOrgs.create(principal, request),
    deprovisionClientOrg: (request, { principal }) => clientOrgs.deprovision(principal, request.id),
    listClientOrgs: (request, { principal }) => clientOrgs.list(principal, request),
  };
  return implement('identity', ClientOrgServiceService, handlers, deps);
}
