import { ALL_SCOPES } from '@svc/kit';
import { ApiScope, MemberRole, OrgKind } from '@svc/proto/common/v1';

const EVERY_SCOPE = [...ALL_SCOPES];

const AGENT_SCOPES: ApiScope[] = [
  ApiScope.MESSAGES_READ,
  ApiScope.MESSAGES_SEND,
  ApiScope.CONVERSATIONS_MANAGE,
  ApiScope.NOTES_WRITE,
  ApiScope.CONTACTS_READ,
  ApiScope.CONTACTS_MANAGE,
  ApiScope.TEAM_READ,
  ApiScope.CONTENT_READ,
  ApiScope.PII_READ,
];

/**
 * What a dashboard member may do (docs/decisions/0004-member-roles.md): owners and admins everything, agents the
 * day-to-day inbox work. PARTNER_ADMIN exists only on TECH_PROVIDER orgs.
 */
export function scopesOfRole(role: MemberRole, orgKind: OrgKind): ApiScope[] {
  const scopes = role === MemberRole.AGENT ? AGENT_SCOPES : EVERY_SCOPE;
  return orgKind === OrgKind.TECH_PROVIDER ? [...scopes] : scopes.filter((s) => s !== ApiScope.PARTNER_ADMIN);
}

export function allScopes(): ApiScope[] {
  return [...EVERY_SCOPE];
}
