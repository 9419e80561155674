import type { Logger } from '@svc/kit';
import type { Integrations } from '../domain/integrations';
import type { RealtimeHub } from './hub';

/** A `svc.channels.channels.v1` event as widget-api uses it. */
export interface ChannelChange {
  type: string;
  channelId: string;
  publicKey: string;
}

/**
 * What a channel event does on this replica (docs/decisions/0085, 0088): the cached integration is dropped, and the
 * streams of an integration that was deleted, or updated to anything but active, end (a reconnect is then refused
 * like every request of it). Every replica hears every channel event (its own consumer group), so every replica ends
 * its own streams. Whether an update disabled it is read from channels again, only by a replica with such streams.
 */
export function channelChangeHandler(
  integrations: Integrations,
  hub: () => RealtimeHub | undefined,
  logger: Logger,
): (change: ChannelChange) => void {
  const end = (channelId: string) => {
    const ended = hub()?.endChannel(channelId) ?? 0;
    if (ended) logger.info({ channelId, ended }, 'streams of an inactive integration ended');
  };
  return ({ type, channelId, publicKey }) => {
    integrations.evict(channelId, publicKey);
    if (!hub()?.hasChannel(channelId)) return;
    if (type === 'channel.deleted') end(channelId);
    else if (type === 'channel.updated' && publicKey)
      integrations.stillActive(publicKey).then(
        (active) => active || end(channelId),
        (error: unknown) => logger.warn({ err: error, channelId }, 'integration status not read; its streams stay'),
      );
  };
}
