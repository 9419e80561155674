import type { Envelope } from '@svc/proto/events/v1';
import { MessageDirection } from '@svc/proto/inbox/v1';
import { providerOrNone } from '../provider-or-none';
import { periodOf, type Period } from './period';

export const MESSAGES_IN = 'messages_in';
export const MESSAGES_OUT = 'messages_out';
export const CONVERSATIONS = 'conversations';
export type UsageMetric = typeof MESSAGES_IN | typeof MESSAGES_OUT | typeof CONVERSATIONS;

/** The channel kind of a message whose channel channels no longer knows. */
export const UNKNOWN_CHANNEL_KIND = 'UNKNOWN';

/** What usage needs to know about an event's org and channel (OrgLookups; tests stand in for it). */
export interface UsageLookups {
  /** The TECH_PROVIDER org managing `orgId`, or '' when the org is nobody's client org. */
  providerOf(orgId: string): Promise<string>;
  /** The svc.channels.v1.ChannelType name of one of the org's channels, deleted ones included; '' when unknown. */
  channelKindOf(orgId: string, channelId: string): Promise<string>;
}

/** What one event adds to its client org's month. */
export interface UsageFact {
  eventId: string;
  providerOrgId: string;
  clientOrgId: string;
  period: Period;
  metric: UsageMetric;
  /** The channel kind of a message; '' for conversations. */
  channelKind: string;
  /** The contact of a message (an active contact of the month). */
  contactId: string;
}

/**
 * The events usage counts (docs/decisions/0250): `message.created` of a non-internal message, inbound (written by the
 * contact) or outbound (a member, a bot, an API key, the system), and `conversation.created`. The month is the one of
 * the event's occurred time, so a late event lands in its own month.
 */
function countedMetric(envelope: Envelope): UsageMetric | undefined {
  if (envelope.type === 'conversation.created' && envelope.conversation) return CONVERSATIONS;
  const message = envelope.message;
  if (envelope.type !== 'message.created' || !message || message.internal) return undefined;
  if (message.direction === MessageDirection.INBOUND) return MESSAGES_IN;
  if (message.direction === MessageDirection.OUTBOUND) return MESSAGES_OUT;
  return undefined;
}

/** The fact an event adds, or undefined when usage does not count it (not counted, or not a client org's). */
export async function usageFactOf(envelope: Envelope, lookups: UsageLookups): Promise<UsageFact | undefined> {
  const metric = countedMetric(envelope);
  if (!metric) return undefined;
  const occurredAt = new Date(envelope.occurredAt);
  if (Number.isNaN(occurredAt.getTime())) return undefined;
  const providerOrgId = await providerOrNone((orgId) => lookups.providerOf(orgId), envelope.orgId);
  if (!providerOrgId) return undefined;
  const message = metric === CONVERSATIONS ? undefined : envelope.message;
  const channelKind = message
    ? (await lookups.channelKindOf(envelope.orgId, message.channelId)) || UNKNOWN_CHANNEL_KIND
    : '';
  return {
    eventId: envelope.id,
    providerOrgId,
    clientOrgId: envelope.orgId,
    period: periodOf(occurredAt),
    metric,
    channelKind,
    contactId: message?.contactId ?? '',
  };
}
