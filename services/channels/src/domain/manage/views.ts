import type { Channel } from '@svc/proto/channels/v1/platform_channels';
import type { ChannelRow, PlatformChannelRow } from '../../entities';
import type { PlatformAccount } from '../../platforms/adapter';

/** A channel as answered: never a credential or a secret (those stay sealed in `platform_channels`). */
export function channelView(channel: ChannelRow, platform?: PlatformChannelRow): Channel {
  const account = platform ? (JSON.parse(platform.account) as PlatformAccount) : undefined;
  return {
    id: channel.id,
    type: channel.type,
    status: channel.status,
    name: channel.name,
    accountDisplayName: account?.displayName ?? '',
    accountId: platform?.externalAccountId ?? '',
    aiAutoReply: platform?.aiAutoReply ?? false,
    connectedAt: (platform?.connectedAt ?? channel.createdAt).toISOString(),
    createdAt: channel.createdAt.toISOString(),
    updatedAt: channel.updatedAt.toISOString(),
    authorizationError: platform?.authorizationError ?? '',
  };
}
