import type { OutboundContent, OutboundMessage, PlatformError } from '../adapter';
import { refusedContent } from '../graph/send';

/** At most 3 reply buttons; above that a list (as Chatwoot does), which holds at most 10 rows. */
export const MAX_REPLY_BUTTONS = 3;
export const MAX_LIST_ROWS = 10;
/** Title lengths the platform accepts: reply button 20, list row 24, text body 4096 characters. */
const BUTTON_TITLE_MAX = 20;
const ROW_TITLE_MAX = 24;
export const TEXT_MAX = 4096;

/**
 * The bodies of `POST /<PHONE_NUMBER_ID>/messages` for one outbound message: usually one, one per attachment for
 * media (the platform takes one media object per message). Shapes follow the Cloud API messages reference
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages).
 */
export function chatAppAPayloads(message: OutboundMessage): Record<string, unknown>[] | PlatformError {
  const envelope = (type: string, part: unknown, withContext: boolean): Record<string, unknown> => ({
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: message.recipient,
    type,
    [type]: part,
    ...(withContext && message.replyToPlatformMessageId
      ? { context: { message_id: message.replyToPlatformMessageId } }
      : {}),
  });
  const content = message.content;
  switch (content.type) {
    case 'TEXT':
      if (content.text.length > TEXT_MAX)
        return refusedContent('text_too_long', `text is longer than ${TEXT_MAX} characters`);
      return [envelope('text', { body: content.text, preview_url: false }, true)];
    case 'MEDIA':
      return content.media.map((media, index) => {
        const kind = mediaKind(media.mimeType);
        const part: Record<string, unknown> = { link: media.url };
        // Audio takes no caption; the caption goes with the first attachment that can carry it.
        if (index === 0 && content.caption && kind !== 'audio') part.caption = content.caption;
        if (kind === 'document') part.filename = media.fileName;
        return envelope(kind, part, index === 0);
      });
    case 'LOCATION':
      return [envelope('location', stripUndefined({ ...content, type: undefined }), true)];
    case 'CONTACT_CARD':
      return [envelope('contacts', [contactCard(content)], true)];
    case 'BUTTONS':
      return buttons(content, (part) => envelope('interactive', part, true));
    case 'TEMPLATE':
      return [
        envelope(
          'template',
          {
            name: content.name,
            language: { policy: 'deterministic', code: content.language },
            components: content.components.map((component) =>
              stripUndefined({
                type: component.type,
                sub_type: component.subType,
                index: component.index === undefined ? undefined : String(component.index),
                parameters: component.parameters,
              }),
            ),
          },
          false,
        ),
      ];
  }
}

function buttons(
  content: Extract<OutboundContent, { type: 'BUTTONS' }>,
  wrap: (part: unknown) => Record<string, unknown>,
): Record<string, unknown>[] | PlatformError {
  if (content.buttons.length === 0) return refusedContent('no_buttons', 'a buttons message needs at least one button');
  if (content.buttons.length <= MAX_REPLY_BUTTONS) {
    return [
      wrap({
        type: 'button',
        body: { text: content.text },
        action: {
          buttons: content.buttons.map((b) => ({
            type: 'reply',
            reply: { id: b.id, title: b.title.slice(0, BUTTON_TITLE_MAX) },
          })),
        },
      }),
    ];
  }
  if (content.buttons.length > MAX_LIST_ROWS) {
    return refusedContent('too_many_buttons', `at most ${MAX_LIST_ROWS} choices fit in one list message`);
  }
  return [
    wrap({
      type: 'list',
      body: { text: content.text },
      action: {
        button: 'Choose',
        sections: [{ rows: content.buttons.map((b) => ({ id: b.id, title: b.title.slice(0, ROW_TITLE_MAX) })) }],
      },
    }),
  ];
}

function contactCard(card: Extract<OutboundContent, { type: 'CONTACT_CARD' }>): Record<string, unknown> {
  const [first, ...rest] = card.name.split(' ');
  return {
    name: stripUndefined({ formatted_name: card.name, first_name: first, last_name: rest.join(' ') || undefined }),
    phones: card.phones.map((phone) => ({ phone })),
    emails: card.emails.map((email) => ({ email })),
  };
}

function mediaKind(mimeType: string): 'image' | 'video' | 'audio' | 'document' {
  if (/^image\/(jpeg|png)$/.test(mimeType)) return 'image';
  if (/^video\/(mp4|3gpp)$/.test(mimeType)) return 'video';
  if (mimeType.startsWith('audio/')) return 'audio';
  return 'document';
}

function stripUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
