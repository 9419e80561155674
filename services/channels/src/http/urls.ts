import type { ChannelsConfig } from '../config';

/** The public base URL platforms reach us at: CHANNELS_PUBLIC_URL, else (development) this process's HTTP port. */
export function channelsPublicUrl(config: Pick<ChannelsConfig, 'CHANNELS_PUBLIC_URL' | 'HTTP_PORT'>): string {
  return (config.CHANNELS_PUBLIC_URL || `http://localhost:${config.HTTP_PORT}`).replace(/\/+$/, '');
}

/** Where a platform delivers a channel's webhooks (registered at connect time): `<public URL>/channels/in/<id>`. */
export function inboundWebhookUrl(
  config: Pick<ChannelsConfig, 'CHANNELS_PUBLIC_URL' | 'HTTP_PORT'>,
  channelId: string,
): string {
  return `${channelsPublicUrl(config)}/channels/in/${encodeURIComponent(channelId)}`;
}
