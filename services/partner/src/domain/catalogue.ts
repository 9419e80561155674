/**
 * The event kinds a partner webhook can choose (docs/partner-webhooks.md, docs/decisions/0240): the one list. Each is
 * sent for every client org of the provider; registering or setting an unknown kind is INVALID_ARGUMENT naming
 * `events`. Which internal event becomes which kind is the fan-out's mapping (services/partner/src/domain/fanout/).
 */
export const PARTNER_EVENT_KINDS = [
  'message.created',
  'message.updated',
  'message.deleted',
  'message.status_changed',
  'conversation.created',
  'conversation.assigned',
  'conversation.closed',
  'conversation.reopened',
  'contact.created',
  'contact.updated',
  'contact.erased',
  'channel.connected',
  'channel.disconnected',
] as const;
export type PartnerEventKind = (typeof PARTNER_EVENT_KINDS)[number];

export function isPartnerEventKind(kind: string): kind is PartnerEventKind {
  return (PARTNER_EVENT_KINDS as readonly string[]).includes(kind);
}
