import { ERASE_REQUESTED, ERASURE_TOPIC } from '@svc/kit';
import type { ChatEvent, Envelope, MessageEvent } from '@svc/proto/events/v1';
import type { PartnerEventKind } from '../catalogue';

/** The topics the fan-out reads (owned by inbox, contacts and channels; the names are their contract). */
export const MESSAGES_TOPIC = 'svc.inbox.messages.v1';
export const CHATS_TOPIC = 'svc.inbox.chats.v1';
export const PEOPLE_TOPIC = 'svc.contacts.people.v1';
export const CHANNELS_TOPIC = 'svc.channels.channels.v1';
export const FANOUT_TOPICS = [MESSAGES_TOPIC, CHATS_TOPIC, PEOPLE_TOPIC, ERASURE_TOPIC, CHANNELS_TOPIC] as const;

/** `data` of a payload: always the client org, then the object's ids and the fields the internal event carries. */
export type PartnerEventData = { clientOrgId: string } & Record<string, string | boolean | null>;

/** One internal event as the catalogue sees it. */
export interface PartnerEvent {
  eventId: string;
  kind: PartnerEventKind;
  clientOrgId: string;
  occurredAt: string;
  /** The contact the payload names (its erasure removes the stored payload); null when it names none. */
  contactId: string | null;
  data: PartnerEventData;
}

/**
 * Internal event type → catalogue kind (docs/decisions/0240). A thread (`chat`) is what a provider knows as a
 * conversation: `chat.opened` is `conversation.created` and the thread's changes are `conversation.*`; inbox's own
 * `conversation.created` (the per-contact aggregate, created with the contact's first thread) is not sent. Anything
 * absent here (reactions, labels, reads, typing, channel updates and secrets) is not sent.
 */
const MESSAGE_KINDS: Record<string, PartnerEventKind> = {
  'message.created': 'message.created',
  'message.updated': 'message.updated',
  'message.deleted': 'message.deleted',
  'message.status_changed': 'message.status_changed',
};
const CHAT_KINDS: Record<string, PartnerEventKind> = {
  'chat.opened': 'conversation.created',
  'chat.assigned': 'conversation.assigned',
  'chat.unassigned': 'conversation.assigned',
  'chat.closed': 'conversation.closed',
  'chat.reopened': 'conversation.reopened',
};
const CONTACT_KINDS: Record<string, PartnerEventKind> = {
  'contact.created': 'contact.created',
  'contact.updated': 'contact.updated',
};
const CHANNEL_KINDS: Record<string, PartnerEventKind> = {
  'channel.created': 'channel.connected',
  'channel.deleted': 'channel.disconnected',
};

const orNull = (value: string): string | null => value || null;

function messageData(kind: PartnerEventKind, message: MessageEvent) {
  return {
    messageId: message.messageId,
    chatId: message.chatId,
    conversationId: orNull(message.conversationId),
    channelId: message.channelId,
    contactId: message.contactId,
    direction: message.direction,
    type: message.type,
    authorType: message.authorType,
    // A deleted message's text is gone from the inbox too.
    text: kind === 'message.deleted' ? null : message.text,
    deliveryStatus: message.deliveryStatus,
    failureReason: orNull(message.failureReason),
    createdAt: message.createdAt,
    editedAt: orNull(message.editedAt),
  };
}

function chatData(chat: ChatEvent) {
  return {
    chatId: chat.chatId,
    conversationId: orNull(chat.conversationId),
    channelId: chat.channelId,
    contactId: chat.contactId,
    status: chat.status,
    assigneeId: orNull(chat.assigneeId),
    priority: chat.priority,
  };
}

/** The partner event an internal one becomes, or undefined when it is not sent (internal notes never are). */
export function partnerEventOf(envelope: Envelope): PartnerEvent | undefined {
  const base = { eventId: envelope.id, clientOrgId: envelope.orgId, occurredAt: envelope.occurredAt };
  if (!envelope.id || !envelope.orgId) return undefined;
  const make = (kind: PartnerEventKind, contactId: string | null, data: Record<string, string | boolean | null>) => ({
    ...base,
    kind,
    contactId: contactId || null,
    data: { clientOrgId: envelope.orgId, ...data },
  });
  const { message, chat, contact, channel, erasure } = envelope;
  const messageKind = MESSAGE_KINDS[envelope.type];
  if (messageKind && message) {
    if (message.internal) return undefined;
    return make(messageKind, message.contactId, messageData(messageKind, message));
  }
  const chatKind = CHAT_KINDS[envelope.type];
  if (chatKind && chat) return make(chatKind, chat.contactId, chatData(chat));
  const contactKind = CONTACT_KINDS[envelope.type];
  if (contactKind && contact) {
    return make(contactKind, contact.contactId, {
      contactId: contact.contactId,
      externalId: contact.externalId ?? null,
    });
  }
  // The erased contact's id is what the provider needs to erase its own copy; the delivery names no contact, so the
  // erasure it announces does not remove it.
  if (envelope.type === ERASE_REQUESTED && erasure?.contactId)
    return make('contact.erased', null, { contactId: erasure.contactId });
  const channelKind = CHANNEL_KINDS[envelope.type];
  if (channelKind && channel) {
    return make(channelKind, null, { channelId: channel.channelId, channelType: channel.channelType });
  }
  return undefined;
}
