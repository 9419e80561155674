import { ApiScope, MemberRole, OrgKind, Principal, PrincipalKind } from '@svc/proto/common/v1';
import { Forbidden } from './errors';

export { ApiScope, MemberRole, OrgKind, Principal, PrincipalKind };

export { PRINCIPAL_HEADER } from './trust/signer';
/** The address a public request came from, as the gateway determined it; sent with login (login throttle). */
export const CLIENT_ADDRESS_HEADER = 'x-svc-client-address';

/** A service of this installation acting for `orgId` (no org: the installation itself, e.g. the gateway's Authenticate). */
export function systemPrincipal(orgId = ''): Principal {
  return {
    kind: PrincipalKind.SYSTEM,
    orgId,
    orgKind: OrgKind.ORG_KIND_UNSPECIFIED,
    keyId: '',
    memberId: '',
    role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
    scopes: [],
    sessionId: '',
    visitorContactId: '',
    visitorChannelId: '',
  };
}

/**
 * A website visitor in a widget session (widget-api): one contact of one web integration (channel) of the org; it
 * reaches only that contact's chats on that channel (docs/decisions/0081).
 */
export function visitorPrincipal(orgId: string, contactId: string, channelId: string): Principal {
  return {
    ...systemPrincipal(orgId),
    kind: PrincipalKind.VISITOR,
    visitorContactId: contactId,
    visitorChannelId: channelId,
  };
}

/** A caller without credentials: may call identity's Login and nothing else (kit grpc `implement`). */
export function anonymousPrincipal(): Principal {
  return { ...systemPrincipal(), kind: PrincipalKind.ANONYMOUS };
}

/**
 * Keys hold the scopes they were minted with, members those of their role; services act with every scope, within the
 * one org their principal names (every query is scoped by `principal.orgId`).
 */
export function hasScope(principal: Principal, scope: ApiScope): boolean {
  return principal.kind === PrincipalKind.SYSTEM || principal.scopes.includes(scope);
}

export function requireScope(principal: Principal, scope: ApiScope): void {
  if (!hasScope(principal, scope)) throw new Forbidden(`missing scope ${scope}`, { scope });
}

export function requireOrg(principal: Principal): string {
  if (!principal.orgId) throw new Forbidden('this call needs an org');
  return principal.orgId;
}

export function requireSystem(principal: Principal): void {
  if (principal.kind !== PrincipalKind.SYSTEM) throw new Forbidden('only services of this installation may call this');
}

export function requireVisitor(principal: Principal): void {
  if (principal.kind !== PrincipalKind.VISITOR) throw new Forbidden('only a visitor session may call this');
}

export function requireAnonymous(principal: Principal): void {
  if (principal.kind !== PrincipalKind.ANONYMOUS) throw new Forbidden('only a caller without credentials logs in');
}

export function requireMemberSession(principal: Principal): void {
  if (principal.kind !== PrincipalKind.MEMBER_SESSION) {
    throw new Forbidden('this operation is available only from a dashboard session, never with an API key');
  }
}

/** The 15 scopes of spec 5.1 (without proto3's unset and unknown placeholders). */
export const ALL_SCOPES: readonly ApiScope[] = Object.values(ApiScope).filter(
  (s) => s !== ApiScope.API_SCOPE_UNSPECIFIED && s !== ApiScope.UNRECOGNIZED,
);
