import type { InboundContent, InboundEvent } from '../adapter';
import { parseViberJson } from './api';
import type { ButtonTracking, ViberCallback, ViberMessage } from './types';

/**
 * The events of one Viber callback (decision 0133): a user `message` (its `message_token` deduplicates), and the
 * `delivered` / `seen` / `failed` statuses of what we sent (in any order; the inbox's forward-only machine orders
 * them). `webhook` (the check `set_webhook` makes), `subscribed`, `unsubscribed`, `conversation_started` and
 * `client_status` produce no event: the route answers 200 and nothing reaches the inbox.
 */
export function parseViberCallback(rawBody: Buffer): InboundEvent[] {
  const callback = parseViberJson<ViberCallback>(rawBody.toString('utf8'));
  if (typeof callback !== 'object' || callback === null || typeof callback.event !== 'string') {
    throw new Error('not a Viber callback: event missing');
  }
  const at = new Date(callback.timestamp);
  switch (callback.event) {
    case 'message':
      return messageEvent(callback, at);
    case 'delivered':
    case 'seen':
    case 'failed': {
      if (!callback.message_token) throw new Error(`Viber ${callback.event} callback without message_token`);
      return [
        {
          kind: 'status',
          platformMessageId: callback.message_token,
          status: callback.event === 'delivered' ? 'DELIVERED' : callback.event === 'seen' ? 'READ' : 'FAILED',
          at,
          ...(callback.event === 'failed'
            ? { failure: { code: 'failed', message: callback.desc || 'Viber could not deliver the message' } }
            : {}),
        },
      ];
    }
    default:
      return [];
  }
}

function messageEvent(callback: ViberCallback, at: Date): InboundEvent[] {
  const { sender, message, message_token: token } = callback;
  if (!sender?.id || !message || !token) throw new Error('Viber message callback without sender, message or token');
  return [
    {
      kind: 'message',
      platformMessageId: token,
      from: { platformUserId: sender.id, ...(sender.name ? { name: sender.name } : {}) },
      sentAt: at,
      content: messageContent(message),
    },
  ];
}

function messageContent(message: ViberMessage): InboundContent {
  const caption = message.text ? { caption: message.text } : {};
  const fileName = message.file_name ? { fileName: message.file_name } : {};
  switch (message.type) {
    case 'text': {
      const text = message.text ?? '';
      const payload = buttonPayload(message.tracking_data, text);
      return payload !== undefined ? { type: 'BUTTON_REPLY', text, payload } : { type: 'TEXT', text };
    }
    case 'picture':
      return { type: 'MEDIA', media: [{ ref: message.media ?? '', mimeType: 'image/jpeg', ...fileName }], ...caption };
    case 'video':
      return { type: 'MEDIA', media: [{ ref: message.media ?? '', mimeType: 'video/mp4', ...fileName }], ...caption };
    case 'file':
      return { type: 'MEDIA', media: [{ ref: message.media ?? '', ...fileName }] };
    case 'location':
      return {
        type: 'LOCATION',
        latitude: message.location?.lat ?? 0,
        longitude: message.location?.lon ?? 0,
        ...(message.location?.address ? { address: message.location.address } : {}),
      };
    case 'contact':
      return {
        type: 'CONTACT_CARD',
        name: message.contact?.name ?? '',
        phones: message.contact?.phone_number ? [message.contact.phone_number] : [],
        emails: [],
      };
    case 'url':
      return { type: 'TEXT', text: message.media ?? message.text ?? '' };
    case 'sticker':
      return { type: 'UNSUPPORTED', description: 'a sticker' };
    default:
      return { type: 'UNSUPPORTED', description: `a Viber ${message.type} message` };
  }
}

/** The id of the button whose title the user tapped, when the message answers buttons we sent. */
function buttonPayload(trackingData: string | undefined, text: string): string | undefined {
  if (!trackingData) return undefined;
  try {
    const tracking = JSON.parse(trackingData) as Partial<ButtonTracking>;
    return tracking.svcButtons?.[text];
  } catch {
    return undefined;
  }
}
