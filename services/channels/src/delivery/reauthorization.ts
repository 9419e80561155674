import type { DataSource } from 'typeorm';
import { enqueueEvents, entitySql, now, type Logger, type OutboxRelay } from '@svc/kit';
import { ChannelStatus } from '@svc/proto/channels/v1';
import { ChannelRow, PlatformChannelRow } from '../entities';
import { channelEvent } from '../domain/events';
import type { PlatformError } from '../platforms/adapter';

/**
 * A platform refused the channel's credentials on a send (`reauthorize`: an expired or revoked token): the channel
 * becomes NEEDS_REAUTHORIZATION with the platform's words, its queue is held (the sender sends only for ACTIVE
 * channels) and `channel.updated` tells the dashboard. Connecting the channel again makes it ACTIVE and releases it.
 */
export class Reauthorizations {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly logger: Logger,
  ) {}

  async mark(channelId: string, error: PlatformError): Promise<void> {
    const at = now();
    const changed = await this.dataSource.transaction(async (manager) => {
      const moved = await entitySql(this.dataSource, ChannelRow).update(
        manager,
        { status: ChannelStatus.NEEDS_REAUTHORIZATION, updatedAt: at },
        { id: channelId, status: ChannelStatus.ACTIVE, deletedAt: null },
      );
      if (!moved) return false;
      await manager.update(
        PlatformChannelRow,
        { id: channelId },
        {
          authorizationError: `${error.message} (${error.code})`.slice(0, 500),
        },
      );
      const channel = await manager.findOneByOrFail(ChannelRow, { id: channelId });
      await enqueueEvents(manager, [channelEvent('channel.updated', channel)], at);
      return true;
    });
    if (!changed) return;
    this.relay().nudge();
    this.logger.warn(
      { channelId, code: error.code },
      'platform refused the credentials: channel needs reauthorization',
    );
  }
}
