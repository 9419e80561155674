import { hostname } from 'node:os';
import {
  ERASE_CONFIRMED,
  ERASE_REQUESTED,
  ERASURE_TOPIC,
  ORG_ERASE_CONFIRMED,
  ORG_ERASE_REQUESTED,
  ORG_ERASURE_TOPIC,
  newId,
  type EventBus,
  type Subscription,
} from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import type { ChannelChange } from './channel-changes';
import type { RealtimeHub } from './hub';

export const MESSAGES_TOPIC = 'svc.inbox.messages.v1';
export const CHATS_TOPIC = 'svc.inbox.chats.v1';
/** Published by channels when a channel changes (updated, disabled, secret rotated, deleted). */
export const CHANNELS_TOPIC = 'svc.channels.channels.v1';

export interface FeedTargets {
  hub: RealtimeHub;
  /** A channel changed: what is cached about it is dropped, the streams of an inactive one end. */
  channelChanged(change: ChannelChange): void;
  /** A contact is being erased: its streams on this replica end. */
  contactErased(contactId: string): void;
  /** An org is being deprovisioned: its streams on this replica end, its cached integrations go. */
  orgErased(orgId: string): void;
}

/**
 * The events after which a contact's streams must be gone (decision 0173): the request (the contact is unreadable
 * from then on), and widget-api's own confirmation (its sessions are deleted by then, on whichever replica consumed
 * the request, so a stream reopened in between ends too and cannot reopen).
 */
function erasedContactOf(envelope: Envelope): string | undefined {
  const erasure = envelope.erasure;
  if (!erasure?.contactId) return undefined;
  if (envelope.type === ERASE_REQUESTED) return erasure.contactId;
  if (envelope.type === ERASE_CONFIRMED && erasure.service === 'widget-api') return erasure.contactId;
  return undefined;
}

/** The same two moments for a deprovisioned org (decision 0221). */
function erasedOrgOf(envelope: Envelope): string | undefined {
  if (!envelope.erasure || !envelope.orgId) return undefined;
  if (envelope.type === ORG_ERASE_REQUESTED) return envelope.orgId;
  if (envelope.type === ORG_ERASE_CONFIRMED && envelope.erasure.service === 'widget-api') return envelope.orgId;
  return undefined;
}

/**
 * Every replica must see every chat's changes (its own streams may be any chats), so each subscribes in a consumer
 * group of its own (unique per process, so two instances in one process are two groups), from the latest offset.
 * Only the fact that a chat changed is used: the events themselves are read from the inbox (hub.ts).
 */
export function subscribeFeed(bus: EventBus, topicPrefix: string, targets: FeedTargets): Promise<Subscription> {
  return bus.subscribe({
    groupId: `${topicPrefix}widget-api.realtime.${hostname()}-${process.pid}-${newId()}`,
    topics: [MESSAGES_TOPIC, CHATS_TOPIC, CHANNELS_TOPIC, ERASURE_TOPIC, ORG_ERASURE_TOPIC].map(
      (topic) => topicPrefix + topic,
    ),
    awaitAssignment: true,
    handle: async (record) => {
      const envelope = Envelope.decode(record.value);
      if (envelope.message?.visitorSeq) targets.hub.changed(envelope.message.chatId);
      else if (envelope.chat?.visitorSeq) targets.hub.changed(envelope.chat.chatId);
      else if (envelope.typing && envelope.typing.authorType !== 'CONTACT') {
        const { chatId, typing, displayName, avatarUrl } = envelope.typing;
        targets.hub.typing(chatId, { typing, displayName, avatarUrl });
      }
      if (envelope.channel?.channelId) {
        const { channelId, publicKey } = envelope.channel;
        targets.channelChanged({ type: envelope.type, channelId, publicKey });
      }
      const erased = erasedContactOf(envelope);
      if (erased) targets.contactErased(erased);
      const erasedOrg = erasedOrgOf(envelope);
      if (erasedOrg) targets.orgErased(erasedOrg);
    },
  });
}
