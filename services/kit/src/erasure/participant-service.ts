import { ErasureParticipantServiceService } from '@svc/proto/erasure/v1';
import { InvalidArgument } from '../errors';
import { isId } from '../ids';
import { requireOrg, requireSystem } from '../principal';
import { implement, type GrpcServer, type ImplementDeps, type ServiceHandlers } from '../grpc/server';
import type { ErasurePart } from './contract';

/** The health name of the participant service (a participant lists it in its `grpcServices`). */
export const ERASURE_PARTICIPANT_GRPC_SERVICE = 'svc.erasure.v1.ErasureParticipantService';

/**
 * `svc.erasure.v1.ErasureParticipantService` over a participant's part: `PreviewErasure` answers what `part.erase`
 * would remove now. Only services of this installation call it (contacts, SYSTEM of the contact's org); the org of
 * the principal scopes every count, so another org's contact counts zeros.
 */
export function erasureParticipantService(part: ErasurePart, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof ErasureParticipantServiceService> = {
    previewErasure: async (request, { principal }) => {
      requireSystem(principal);
      const orgId = requireOrg(principal);
      if (!isId(request.contactId)) {
        throw new InvalidArgument('contactId must be a 24-character hex id', { field: 'contactId' });
      }
      return { service: part.service, counts: await part.preview(orgId, request.contactId) };
    },
  };
  return implement(part.service, ErasureParticipantServiceService, handlers, deps);
}

/** Adds the participant service to a service's gRPC server (call it from `register`). */
export function addErasureParticipant(grpc: GrpcServer, part: ErasurePart, deps: ImplementDeps): void {
  grpc.add(ErasureParticipantServiceService, erasureParticipantService(part, deps), ERASURE_PARTICIPANT_GRPC_SERVICE);
}
