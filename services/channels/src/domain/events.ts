import type { NewEvent } from '@svc/kit';
import type { ChannelRow } from '../entities';

export const CHANNELS_TOPIC = 'svc.channels.channels.v1';

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
