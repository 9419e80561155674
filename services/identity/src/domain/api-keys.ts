import type { DataSource } from 'typeorm';
import {
  ALL_SCOPES,
  InvalidArgument,
  NotFound,
  enqueueEvents,
  now,
  requireMemberSession,
  type Principal,
} from '@svc/kit';
import { ApiScope, OrgKind } from '@svc/proto/common/v1';
import type { OrgApiKey } from '@svc/proto/identity/v1';
import { ApiKeyRow } from '../entities';
import { issueCredential } from './credentials';
import { apiKeyView } from './views';

export const KEYS_TOPIC = 'svc.identity.keys.v1';

/** Minting, listing and revoking keys: dashboard sessions only, so a leaked key can never widen itself. */
export class ApiKeys {
  constructor(private readonly dataSource: DataSource) {}

  async mint(principal: Principal, name: string, scopes: ApiScope[]): Promise<OrgApiKey> {
    requireMemberSession(principal);
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > 200)
      throw new InvalidArgument('name must be 1 to 200 characters', { field: 'name' });
    const unique = [...new Set(scopes)].filter((s) => ALL_SCOPES.includes(s));
    if (!unique.length) throw new InvalidArgument('a key needs at least one scope', { field: 'scopes' });
    if (unique.includes(ApiScope.PARTNER_ADMIN) && principal.orgKind !== OrgKind.TECH_PROVIDER) {
      throw new InvalidArgument('PARTNER_ADMIN is only for keys of a TECH_PROVIDER org', { field: 'scopes' });
    }
    const beyond = unique.filter((s) => !principal.scopes.includes(s));
    if (beyond.length)
      throw new InvalidArgument(`a key cannot hold scopes its creator lacks: ${beyond.join(', ')}`, {
        field: 'scopes',
      });
    const issued = issueCredential('key');
    const row = this.dataSource.getRepository(ApiKeyRow).create({
      id: issued.id,
      orgId: principal.orgId,
      name: trimmed,
      scopes: unique,
      secretHash: issued.secretHash,
      createdByMemberId: principal.memberId,
      createdAt: now(),
      lastUsedAt: null,
      revokedAt: null,
    });
    await this.dataSource.getRepository(ApiKeyRow).insert(row);
    return apiKeyView(row, issued.credential);
  }

  async list(principal: Principal): Promise<OrgApiKey[]> {
    requireMemberSession(principal);
    const rows = await this.dataSource
      .getRepository(ApiKeyRow)
      .find({ where: { orgId: principal.orgId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return rows.map((row) => apiKeyView(row));
  }

  /** Revokes at once: the next authentication fails, and gateways evict the key from their caches on the event. */
  async revoke(principal: Principal, keyId: string): Promise<OrgApiKey> {
    requireMemberSession(principal);
    return this.dataSource.transaction(async (manager) => {
      const row = await manager.findOneBy(ApiKeyRow, { id: keyId, orgId: principal.orgId });
      if (!row) throw new NotFound('API key not found', { field: 'keyId' });
      if (!row.revokedAt) {
        row.revokedAt = now();
        await manager.update(ApiKeyRow, { id: row.id }, { revokedAt: row.revokedAt });
        await enqueueEvents(manager, [
          {
            topic: KEYS_TOPIC,
            key: row.id,
            type: 'apikey.revoked',
            orgId: row.orgId,
            payload: { apiKey: { keyId: row.id } },
          },
        ]);
      }
      return apiKeyView(row);
    });
  }
}
