import type { OutboundMessage, PlatformError } from '../adapter';
import { refusedContent } from '../graph/send';

/** Quick replies: at most 13, titles of at most 20 characters (Send API quick replies reference). */
export const MAX_QUICK_REPLIES = 13;
const QUICK_REPLY_TITLE_MAX = 20;
/** Text messages take at most 2000 characters. */
export const TEXT_MAX = 2000;

/**
 * The `message` objects of one outbound message for `POST /<PAGE_ID>/messages`
 * (https://developers.facebook.com/docs/messenger-platform/reference/send-api/): one per attachment, then the caption.
 * The platform has no outbound location or contact card: they go as text (decision 0126).
 */
export function socialAppDMessages(message: OutboundMessage): Record<string, unknown>[] | PlatformError {
  const content = message.content;
  switch (content.type) {
    case 'TEXT':
      return content.text.length > TEXT_MAX
        ? refusedContent('text_too_long', `text is longer than ${TEXT_MAX} characters`)
        : [{ text: content.text }];
    case 'MEDIA':
      return [
        ...content.media.map((media) => ({
          attachment: { type: attachmentType(media.mimeType), payload: { url: media.url, is_reusable: false } },
        })),
        ...(content.caption ? [{ text: content.caption }] : []),
      ];
    case 'LOCATION': {
      const lines = [
        content.name,
        content.address,
        `https://maps.google.com/?q=${content.latitude},${content.longitude}`,
      ];
      return [{ text: lines.filter(Boolean).join('\n') }];
    }
    case 'CONTACT_CARD':
      return [{ text: [content.name, ...content.phones, ...content.emails].join('\n') }];
    case 'BUTTONS':
      if (content.buttons.length === 0)
        return refusedContent('no_buttons', 'a buttons message needs at least one button');
      if (content.buttons.length > MAX_QUICK_REPLIES) {
        return refusedContent('too_many_buttons', `at most ${MAX_QUICK_REPLIES} quick replies fit in one message`);
      }
      return [
        {
          text: content.text,
          quick_replies: content.buttons.map((b) => ({
            content_type: 'text',
            title: b.title.slice(0, QUICK_REPLY_TITLE_MAX),
            payload: b.id,
          })),
        },
      ];
    case 'TEMPLATE':
      return refusedContent('unsupported_content', 'SOCIAL_APP_D has no approved templates');
  }
}

function attachmentType(mimeType: string): 'image' | 'video' | 'audio' | 'file' {
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('video/')) return 'video';
  if (mimeType.startsWith('audio/')) return 'audio';
  return 'file';
}
