import type { DataSource } from 'typeorm';
import { InvalidArgument, idsOfOrg, type Principal } from '@svc/kit';
import type { ChannelType } from '@svc/proto/channels/v1';
import { ChannelRow } from '../entities';
import { CHANNEL_TYPES } from '../entities/channel';

/**
 * Which of `ids` name channels of the org that are not deleted (a disconnected channel is deleted), whatever their
 * status (SYSTEM callers: contacts checks a Channel user ID identity, webhook-ingress a connection's channel; decision
 * 0042). A paused channel or one needing reauthorisation still receives, so its users' identities are still written.
 */
export function findChannels(
  dataSource: DataSource,
  principal: Principal,
  ids: string[],
  type?: ChannelType,
): Promise<string[]> {
  // A kind is one of the enum's names (looked up, never the caller's text), so it can stand in the condition.
  const kind = type === undefined ? undefined : CHANNEL_TYPES.find((known) => known === type);
  if (type !== undefined && !kind) throw new InvalidArgument('type must be a channel kind', { field: 'type' });
  const ofKind = kind ? ` AND row.type = '${kind}'` : '';
  return idsOfOrg(principal, dataSource.manager, ChannelRow, ids, 'channelIds', `row.deletedAt IS NULL${ofKind}`);
}
