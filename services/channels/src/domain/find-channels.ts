import type { DataSource } from 'typeorm';
import { InvalidArgument, MAX_FIND_IDS, isId, requireOrg, requireSystem, type Principal } from '@svc/kit';
import type { ChannelType, FoundChannel } from '@svc/proto/channels/v1';
import { ChannelRow } from '../entities';
import { CHANNEL_TYPES } from '../entities/channel';

/**
 * Which of `ids` name channels of the org that are not deleted (a disconnected channel is deleted), whatever their
 * status, with their kind (SYSTEM callers: contacts checks a Channel user ID identity, webhook-ingress a connection's
 * channel; decision 0042). A paused channel or one needing reauthorisation still receives, so its users' identities
 * are still written. `includeDeleted` finds deleted ones too: partner's usage rollup counts a message of a channel
 * disconnected since (docs/decisions/0251).
 */
export async function findChannels(
  dataSource: DataSource,
  principal: Principal,
  ids: string[],
  options: { type?: ChannelType | undefined; includeDeleted?: boolean } = {},
): Promise<FoundChannel[]> {
  requireSystem(principal);
  const orgId = requireOrg(principal);
  const { type } = options;
  // A kind is one of the enum's names (looked up, never the caller's text), so it can stand in the condition.
  const kind = type === undefined ? undefined : CHANNEL_TYPES.find((known) => known === type);
  if (type !== undefined && !kind) throw new InvalidArgument('type must be a channel kind', { field: 'type' });
  if (ids.length > MAX_FIND_IDS) {
    throw new InvalidArgument(`at most ${MAX_FIND_IDS} ids per call`, { field: 'channelIds' });
  }
  const wanted = [...new Set(ids.filter(isId))];
  if (!wanted.length) return [];
  const query = dataSource.manager
    .createQueryBuilder(ChannelRow, 'row')
    .select(['row.id', 'row.type', 'row.deletedAt'])
    .where('row.orgId = :orgId AND row.id IN (:...wanted)', { orgId, wanted });
  if (!options.includeDeleted) query.andWhere('row.deletedAt IS NULL');
  if (kind) query.andWhere('row.type = :kind', { kind });
  const rows = await query.getMany();
  return rows.map((row) => ({ id: row.id, type: row.type, deleted: row.deletedAt !== null }));
}
