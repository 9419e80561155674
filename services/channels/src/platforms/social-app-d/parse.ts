import type { ConnectedChannel, InboundContent, InboundEvent, InboundMessage, PlatformMediaRef } from '../adapter';

/**
 * The Messenger Platform webhook body
 * (https://developers.facebook.com/docs/messenger-platform/reference/webhook-events/):
 * `{object: "page", entry: [{id: <PAGE_ID>, time, messaging: [event]}]}`, one event per `messaging` item.
 */
interface WebhookBody {
  object?: string;
  entry?: { id?: string; messaging?: MessagingEvent[] }[];
}

interface MessagingEvent {
  sender?: { id?: string };
  recipient?: { id?: string };
  timestamp?: number;
  message?: {
    mid: string;
    text?: string;
    is_echo?: boolean;
    quick_reply?: { payload?: string };
    reply_to?: { mid?: string };
    attachments?: {
      type: string;
      payload?: { url?: string; title?: string; coordinates?: { lat: number; long: number } };
    }[];
  };
  postback?: { mid?: string; title?: string; payload?: string };
  delivery?: { mids?: string[]; watermark: number };
  read?: { watermark: number };
}

/** Attachment kinds that are files to fetch (their type comes with the download). */
const MEDIA_KINDS: ReadonlySet<string> = new Set(['image', 'video', 'audio', 'file']);

/** Every event of one verified body addressed to this channel's page. */
export function parseSocialAppDWebhook(channel: ConnectedChannel, rawBody: Buffer): InboundEvent[] {
  const body = JSON.parse(rawBody.toString('utf8')) as WebhookBody;
  if (body.object !== 'page' || !Array.isArray(body.entry)) throw new Error('not a page webhook');
  const events: InboundEvent[] = [];
  for (const entry of body.entry) {
    if (entry.id && entry.id !== channel.account.externalId) continue;
    for (const item of entry.messaging ?? []) events.push(...eventsOf(item));
  }
  return events;
}

function eventsOf(item: MessagingEvent): InboundEvent[] {
  const user = item.sender?.id;
  if (!user) return [];
  const at = new Date(item.timestamp ?? Date.now());
  if (item.message) {
    // Echoes are the page's own sends (ours or another tool's): not inbound messages.
    if (item.message.is_echo) return [];
    const message: InboundMessage = {
      kind: 'message',
      platformMessageId: item.message.mid,
      from: { platformUserId: user },
      sentAt: at,
      content: messageContent(item.message),
    };
    if (item.message.reply_to?.mid) message.replyToPlatformMessageId = item.message.reply_to.mid;
    return [message];
  }
  if (item.postback) {
    // A tap on a postback button; its mid is present on current versions, else the tap's time makes it unique.
    return [
      {
        kind: 'message',
        platformMessageId: item.postback.mid ?? `postback:${user}:${item.timestamp ?? 0}`,
        from: { platformUserId: user },
        sentAt: at,
        content: { type: 'BUTTON_REPLY', text: item.postback.title ?? '', payload: item.postback.payload ?? '' },
      },
    ];
  }
  if (item.delivery) {
    // `mids` is optional (older clients); the watermark is always there and covers everything before it.
    const upTo = new Date(item.delivery.watermark);
    return [
      ...(item.delivery.mids ?? []).map((mid) => ({
        kind: 'status' as const,
        platformMessageId: mid,
        status: 'DELIVERED' as const,
        at: upTo,
      })),
      { kind: 'watermark', platformUserId: user, status: 'DELIVERED', upTo },
    ];
  }
  if (item.read)
    return [{ kind: 'watermark', platformUserId: user, status: 'READ', upTo: new Date(item.read.watermark) }];
  return [];
}

function messageContent(message: NonNullable<MessagingEvent['message']>): InboundContent {
  if (message.quick_reply) {
    return { type: 'BUTTON_REPLY', text: message.text ?? '', payload: message.quick_reply.payload ?? '' };
  }
  const attachments = message.attachments ?? [];
  const location = attachments.find((a) => a.type === 'location')?.payload?.coordinates;
  if (location) return { type: 'LOCATION', latitude: location.lat, longitude: location.long };
  const media: PlatformMediaRef[] = attachments
    .filter((a) => MEDIA_KINDS.has(a.type) && a.payload?.url)
    .map((a) => ({ ref: a.payload!.url! }));
  if (media.length > 0)
    return message.text ? { type: 'MEDIA', media, caption: message.text } : { type: 'MEDIA', media };
  if (message.text !== undefined) return { type: 'TEXT', text: message.text };
  const kinds = attachments.map((a) => a.type).join(', ') || 'empty';
  return { type: 'UNSUPPORTED', description: `a ${kinds} message` };
}
