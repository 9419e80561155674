import { In, IsNull, type DataSource, type EntityManager } from 'typeorm';
import {
  FailedPrecondition,
  InvalidArgument,
  Unavailable,
  enqueueEvents,
  now,
  requireOrg,
  requireScope,
  type Logger,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { ChannelStatus, ChannelType } from '@svc/proto/channels/v1';
import type { Channel, ChannelUpdate, DisconnectChannelResult } from '@svc/proto/channels/v1/platform_channels';
import { ChannelRow, PlatformChannelRow, WebIntegrationRow } from '../../entities';
import { PlatformCallError } from '../../platforms/adapter';
import type { PlatformAdapters } from '../../platforms/registry';
import { channelEvent, type ChannelEventType } from '../events';
import type { PlatformChannels } from '../platform-channels';
import { text } from '../validation';
import { findChannel, findPlatformChannel } from './find';
import { channelView } from './views';

export const CHANNEL_NAME_MAX = 100;

/**
 * The org's channels as one list, and what an org does to a platform channel once connected: pause and resume
 * (docs/decisions/0120), rename and AI auto-reply, disconnect (0121). CHANNELS_MANAGE within the caller's org.
 */
export class ManagedChannels {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly platformChannels: () => PlatformChannels,
    private readonly adapters: PlatformAdapters,
    private readonly logger: Logger,
  ) {}

  async list(principal: Principal): Promise<Channel[]> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    const channels = await manager.find(ChannelRow, {
      where: { orgId, deletedAt: IsNull() },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    const ids = channels.filter((c) => c.type !== ChannelType.WEB).map((c) => c.id);
    const platforms = ids.length ? await manager.findBy(PlatformChannelRow, { orgId, id: In(ids) }) : [];
    const byId = new Map(platforms.map((p) => [p.id, p]));
    return channels.map((channel) => channelView(channel, byId.get(channel.id)));
  }

  /** ACTIVE → PAUSED; PAUSED answers as is. NEEDS_REAUTHORIZATION is FAILED_PRECONDITION (connect it again first). */
  pause(principal: Principal, id: string): Promise<Channel> {
    return this.moveStatus(principal, id, ChannelStatus.PAUSED, ChannelStatus.ACTIVE, 'pause');
  }

  /** PAUSED → ACTIVE; ACTIVE answers as is. */
  resume(principal: Principal, id: string): Promise<Channel> {
    return this.moveStatus(principal, id, ChannelStatus.ACTIVE, ChannelStatus.PAUSED, 'resume');
  }

  private async moveStatus(
    principal: Principal,
    id: string,
    to: ChannelStatus,
    from: ChannelStatus,
    verb: string,
  ): Promise<Channel> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    return this.write(async (manager) => {
      const { channel, platform } = await findPlatformChannel(
        manager,
        orgId,
        id,
        'disable it with updateWebIntegration (status DISABLED)',
      );
      if (channel.status === to) return { channel, platform };
      if (channel.status !== from)
        throw new FailedPrecondition(
          `cannot ${verb} a channel that is ${ChannelStatus[channel.status]}: connect its account again first`,
        );
      channel.status = to;
      channel.updatedAt = now();
      await manager.update(ChannelRow, { id, orgId }, { status: to, updatedAt: channel.updatedAt });
      return { channel, platform, event: 'channel.updated' };
    });
  }

  /** Replaces the name and AI auto-reply when the input names them. WEB channels: the name only. */
  async update(principal: Principal, id: string, input: ChannelUpdate = {}): Promise<Channel> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    const name =
      input.name === undefined ? undefined : text(input.name, 'name', CHANNEL_NAME_MAX, { allowEmpty: false });
    return this.write(async (manager) => {
      const channel = await findChannel(manager, orgId, id);
      const platform = (await manager.findOneBy(PlatformChannelRow, { id, orgId })) ?? undefined;
      if (input.aiAutoReply !== undefined && !platform)
        throw new InvalidArgument('aiAutoReply: a web integration has no AI auto-reply setting', {
          field: 'aiAutoReply',
        });
      const at = now();
      if (name !== undefined) channel.name = name;
      channel.updatedAt = at;
      await manager.update(ChannelRow, { id, orgId }, { name: channel.name, updatedAt: at });
      if (platform && input.aiAutoReply !== undefined) {
        platform.aiAutoReply = input.aiAutoReply;
        await manager.update(PlatformChannelRow, { id, orgId }, { aiAutoReply: input.aiAutoReply });
      }
      return { channel, platform, event: 'channel.updated' };
    });
  }

  /**
   * Unregisters the webhook at the platform, then erases the credentials and the webhook secret, frees the account
   * and marks the channel disconnected (its row stays: chats keep naming it). A platform that cannot be reached is
   * UNAVAILABLE and nothing changes; a platform that refuses (revoked token, account gone) cannot be asked any more,
   * so the disconnect goes on (docs/decisions/0121).
   */
  async disconnect(principal: Principal, id: string): Promise<DisconnectChannelResult> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    const { platform } = await findPlatformChannel(
      this.dataSource.manager,
      orgId,
      id,
      'remove it with deleteWebIntegration',
    );
    const loaded = await this.platformChannels().load(id);
    const adapter = this.adapters.get(platform.type);
    if (loaded && adapter) {
      try {
        await adapter.unregisterWebhook(loaded.channel);
      } catch (error) {
        if (!(error instanceof PlatformCallError)) throw error;
        if (error.error.transient)
          throw new Unavailable(`the platform did not answer; nothing was changed, try again: ${error.error.message}`);
        this.logger.warn(
          { channelId: id, type: ChannelType[platform.type], code: error.error.code },
          'platform refused to unregister the webhook; disconnecting anyway',
        );
      }
    }
    await this.write(async (manager) => {
      const { channel } = await findPlatformChannel(manager, orgId, id, 'remove it with deleteWebIntegration');
      const at = now();
      channel.deletedAt = at;
      channel.updatedAt = at;
      await manager.update(ChannelRow, { id, orgId }, { deletedAt: at, updatedAt: at });
      await manager.update(
        PlatformChannelRow,
        { id, orgId },
        { connectedAccount: null, credentialsSealed: '', webhookSecretSealed: '' },
      );
      return { channel, event: 'channel.deleted' };
    });
    return { disconnected: true, id };
  }

  /** One transaction: the change and its channel event (outbox), then the relay is nudged. */
  private async write(
    change: (manager: EntityManager) => Promise<{
      channel: ChannelRow;
      platform?: PlatformChannelRow;
      event?: ChannelEventType;
    }>,
  ): Promise<Channel> {
    const done = await this.dataSource.transaction(async (manager) => {
      const result = await change(manager);
      if (result.event) {
        const publicKey =
          result.channel.type === ChannelType.WEB
            ? ((await manager.findOneBy(WebIntegrationRow, { id: result.channel.id }))?.publicKey ?? '')
            : '';
        await enqueueEvents(manager, [channelEvent(result.event, result.channel, publicKey)], result.channel.updatedAt);
      }
      return result;
    });
    if (done.event) this.relay().nudge();
    return channelView(done.channel, done.platform);
  }
}
