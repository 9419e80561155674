import type { EntityManager } from 'typeorm';
import type { ErasureKindCount, NewEvent } from '@svc/kit';
import { ApiKeyRow, MemberRow, SessionRow } from '../../entities';
import { KEYS_TOPIC } from '../api-keys';

/**
 * Identity's part of deprovisioning a client org: its sessions, API keys and members are deleted (the org row stays).
 * Answers the counts and an `apikey.revoked` event per key, so every gateway evicts the keys from its cache at once.
 */
export async function eraseIdentityPart(
  manager: EntityManager,
  orgId: string,
): Promise<{ counts: ErasureKindCount[]; events: NewEvent[] }> {
  const keys = await manager.find(ApiKeyRow, { where: { orgId }, select: { id: true, revokedAt: true } });
  const sessions = (await manager.delete(SessionRow, { orgId })).affected ?? 0;
  await manager.delete(ApiKeyRow, { orgId });
  const members = (await manager.delete(MemberRow, { orgId })).affected ?? 0;
  return {
    counts: [
      { kind: 'members', count: members },
      { kind: 'sessions', count: sessions },
      { kind: 'api_keys', count: keys.length },
    ],
    events: keys
      .filter((key) => !key.revokedAt)
      .map((key) => ({
        topic: KEYS_TOPIC,
        key: key.id,
        type: 'apikey.revoked',
        orgId,
        payload: { apiKey: { keyId: key.id } },
      })),
  };
}
