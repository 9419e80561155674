import type { ServiceError } from '@grpc/grpc-js';
import { domainErrorOf, systemPrincipal, unary, type PrincipalSigner } from '@svc/kit';

/** Where channels finds the services it calls (the embedded stack's ports, or CONTACTS_GRPC_URL / INBOX_GRPC_URL). */
export interface BackendAddresses {
  contacts: () => string;
  inbox: () => string;
}

type Unary<Req, Res> = Parameters<typeof unary<Req, Res>>[0];

/**
 * A call to contacts or the inbox as SYSTEM of `orgId` (kit trust policy: channels → contacts, inbox), its gRPC
 * failure rethrown as the kit domain error it was (UNAVAILABLE / DEADLINE_EXCEEDED: worth retrying).
 */
export async function callAsSystem<Req, Res>(
  signer: PrincipalSigner,
  audience: 'contacts' | 'inbox',
  orgId: string,
  method: Unary<Req, Res>,
  request: Req,
): Promise<Res> {
  try {
    return await unary(method, request, signer.metadata(systemPrincipal(orgId), audience));
  } catch (error) {
    throw domainErrorOf(error as ServiceError);
  }
}
