import type { Principal } from '@svc/kit';
import type { PrincipalTokens } from './auth/signed-principals';

/** What the auth plugin adds to the GraphQL context of every request. */
export interface GatewayContext {
  /** The authenticated caller; unset for credential-less requests (login only, sent to identity as ANONYMOUS). */
  principal?: Principal;
  /** The principal's token for each subgraph, sent to its service as gRPC metadata by Mesh's transport. */
  principalTokens?: PrincipalTokens;
  /** Where a credential-less request (a login) came from; sent to identity for the login throttle. */
  clientAddress?: string;
}
