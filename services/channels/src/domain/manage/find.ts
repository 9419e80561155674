import { IsNull, type EntityManager } from 'typeorm';
import { FailedPrecondition, InvalidArgument, NotFound, isId } from '@svc/kit';
import { ChannelRow, PlatformChannelRow } from '../../entities';

/** A channel of `orgId` that is not disconnected or deleted, or NOT_FOUND (another org's id too: no existence oracle). */
export async function findChannel(manager: EntityManager, orgId: string, id: string): Promise<ChannelRow> {
  if (!isId(id)) throw new InvalidArgument('id must be a 24-character hex id', { field: 'id' });
  const channel = await manager.findOneBy(ChannelRow, { id, orgId, deletedAt: IsNull() });
  if (!channel) throw new NotFound('channel not found', { field: 'id' });
  return channel;
}

/** A messaging platform channel of `orgId`; a WEB channel is FAILED_PRECONDITION naming the web operation to use. */
export async function findPlatformChannel(
  manager: EntityManager,
  orgId: string,
  id: string,
  webAlternative: string,
): Promise<{ channel: ChannelRow; platform: PlatformChannelRow }> {
  const channel = await findChannel(manager, orgId, id);
  const platform = await manager.findOneBy(PlatformChannelRow, { id, orgId });
  if (!platform)
    throw new FailedPrecondition(`a web integration is not a messaging platform channel: ${webAlternative}`);
  return { channel, platform };
}
