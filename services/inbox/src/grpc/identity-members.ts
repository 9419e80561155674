import type { ServiceError } from '@grpc/grpc-js';
import { domainErrorOf, unary, type Peer, type PrincipalSigner, systemPrincipal } from '@svc/kit';
import type { IdentityServiceClient } from '@svc/proto/identity/v1';
import type { MemberDirectory } from '../domain/members';

/** The org's members as identity knows them (`FindMembers`, SYSTEM principal of the org). */
export function identityMembers(identity: Peer<IdentityServiceClient>, signer: () => PrincipalSigner): MemberDirectory {
  return {
    async membersOf(orgId, memberIds) {
      const client = identity.get();
      try {
        const found = await unary(
          client.findMembers.bind(client),
          { memberIds },
          signer().metadata(systemPrincipal(orgId), 'identity'),
        );
        return found.memberIds;
      } catch (error) {
        // UNAVAILABLE (or DEADLINE_EXCEEDED) when identity cannot answer: an assignment is refused, never made unchecked.
        throw domainErrorOf(error as ServiceError);
      }
    },
  };
}
