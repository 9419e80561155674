import type { DataSource } from 'typeorm';
import { idsOfOrg, type Principal } from '@svc/kit';
import { ChannelRow } from '../entities';

/**
 * Which of `ids` name channels of the org that are not deleted (a disconnected channel is deleted), whatever their
 * status (SYSTEM callers: contacts checks a Channel user ID identity, webhook-ingress a connection's channel; decision
 * 0042). A paused channel or one needing reauthorisation still receives, so its users' identities are still written.
 */
export function findChannels(dataSource: DataSource, principal: Principal, ids: string[]): Promise<string[]> {
  return idsOfOrg(principal, dataSource.manager, ChannelRow, ids, 'channelIds', 'row.deletedAt IS NULL');
}
