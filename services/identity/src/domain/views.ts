import { toIso, toIsoOrUndefined } from '@svc/kit';
import type { Org, OrgApiKey, TeamMember } from '@svc/proto/identity/v1';
import type { ApiKeyRow, MemberRow, OrgRow } from '../entities';

export function orgView(row: OrgRow): Org {
  return {
    _id: row.id,
    name: row.name,
    slug: row.slug,
    kind: row.kind,
    parentOrgId: row.parentOrgId ?? undefined,
    createdAt: toIso(row.createdAt),
  };
}

export function memberView(row: MemberRow): TeamMember {
  return { id: row.id, email: row.email, name: row.name, role: row.role, createdAt: toIso(row.createdAt) };
}

export function apiKeyView(row: ApiKeyRow, key?: string): OrgApiKey {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    key,
    createdAt: toIso(row.createdAt),
    lastUsedAt: toIsoOrUndefined(row.lastUsedAt),
    revokedAt: toIsoOrUndefined(row.revokedAt),
  };
}
