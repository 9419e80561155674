import type { NewEvent } from '@svc/kit';
import type { ChannelRow } from '../entities';
import type { ConnectedChannel } from '../platforms/adapter';

export const CHANNELS_TOPIC = 'svc.channels.channels.v1';
/** One verified inbound platform request (`platform_webhook.received`, key: channel id), parsed by the consumer. */
export const INBOUND_TOPIC = 'svc.channels.inbound.v1';

export type ChannelEventType = 'channel.created' | 'channel.updated' | 'channel.deleted' | 'channel.secret_rotated';

/** Ids only (never a secret or a setting): consumers such as widget-api drop what they cached and read it again. */
export function channelEvent(type: ChannelEventType, channel: ChannelRow, publicKey = ''): NewEvent {
  return {
    topic: CHANNELS_TOPIC,
    key: channel.id,
    type,
    orgId: channel.orgId,
    payload: { channel: { channelId: channel.id, channelType: channel.type, publicKey } },
  };
}

/** A verified inbound body, byte for byte, for the inbound consumer (domain/inbound). */
export function platformWebhookEvent(channel: ConnectedChannel, body: Buffer, receivedAt: Date): NewEvent {
  return {
    topic: INBOUND_TOPIC,
    key: channel.channelId,
    type: 'platform_webhook.received',
    orgId: channel.orgId,
    payload: {
      platformWebhook: {
        channelId: channel.channelId,
        channelType: channel.type,
        body,
        receivedAt: receivedAt.toISOString(),
      },
    },
  };
}
