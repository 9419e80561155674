import type { Principal } from '@svc/kit';

/** What the auth plugin adds to the GraphQL context of every request. */
export interface GatewayContext {
  /** The authenticated caller; the gateway's own SYSTEM principal for credential-less requests (login only). */
  principal?: Principal;
  /** Signed principal, sent to services as gRPC metadata by Mesh's transport. */
  principalHeader?: string;
  principalSignature?: string;
  /** Where a credential-less request (a login) came from; sent to identity for the login throttle. */
  clientAddress?: string;
}
