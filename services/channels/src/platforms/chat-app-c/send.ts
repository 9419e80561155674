import {
  PlatformCallError,
  type ConnectedChannel,
  type OutboundContent,
  type OutboundMessage,
  type SendResult,
} from '../adapter';
import { callPlatform } from '../platform-http';
import { sendParts } from '../send-parts';
import type { ViberApi, ViberEnvelope } from './api';
import type { ButtonTracking } from './types';
import { textParts } from '../text-parts';

/** Viber's limits (send_message docs): sender name 28 characters, text 7000, picture description 768. */
export const SENDER_NAME_LIMIT = 28;
export const TEXT_LIMIT = 7000;
export const PICTURE_TEXT_LIMIT = 768;

type Body = Record<string, unknown>;

interface SendContext {
  api: ViberApi;
  authToken: string;
  channel: ConnectedChannel;
  timeoutMs: number;
}

/**
 * One outbound message as `send_message` calls (decision 0133). The sender shown is the account's own name and icon,
 * as `get_account_info` gave them at connect (Viber requires a name; an agent's name would let anyone impersonate
 * the business under its account). Each media item is one call: pictures as `picture`, MP4 as `video`, the rest as
 * `file` (video and file need the byte size, read with a HEAD of the media URL). Buttons are a keyboard of `reply`
 * buttons whose titles are mapped back to their ids through `tracking_data`. A failure after some calls succeeded
 * names them (`partsTaken`): the retry resumes after them (`fromPart`), so no part is posted twice.
 */
export async function sendViber(context: SendContext, message: OutboundMessage): Promise<SendResult> {
  let bodies: Body[];
  try {
    bodies = await viberBodies(context, message.content);
  } catch (error) {
    if (error instanceof PlatformCallError) return { ok: false, error: error.error };
    throw error;
  }
  return sendParts(bodies, message.fromPart ?? 0, async (body) => {
    const sent = await context.api.call<ViberEnvelope & { message_token?: string }>(context.authToken, 'send_message', {
      receiver: message.recipient,
      sender: sender(context.channel),
      ...body,
    });
    return sent.message_token;
  });
}

function sender(channel: ConnectedChannel): Body {
  const name = Array.from(channel.account.displayName || 'Support')
    .slice(0, SENDER_NAME_LIMIT)
    .join('');
  const avatar = channel.account.details['icon'];
  return { name, ...(avatar ? { avatar } : {}) };
}

async function viberBodies(context: SendContext, content: OutboundContent): Promise<Body[]> {
  switch (content.type) {
    case 'TEXT':
      return textParts(content.text, TEXT_LIMIT).map((text) => ({ type: 'text', text }));
    case 'MEDIA':
      return mediaBodies(context, content);
    case 'LOCATION':
      return [{ type: 'location', location: { lat: content.latitude, lon: content.longitude } }];
    case 'CONTACT_CARD': {
      const phone = content.phones[0];
      if (!phone) return [{ type: 'text', text: [content.name, ...content.emails].filter(Boolean).join('\n') }];
      return [{ type: 'contact', contact: { name: content.name || phone, phone_number: phone } }];
    }
    case 'BUTTONS': {
      const tracking: ButtonTracking = {
        svcButtons: Object.fromEntries(content.buttons.map((button) => [button.title, button.id])),
      };
      return [
        {
          type: 'text',
          text: content.text,
          tracking_data: JSON.stringify(tracking),
          keyboard: {
            Type: 'keyboard',
            DefaultHeight: false,
            Buttons: content.buttons.map((button) => ({
              ActionType: 'reply',
              ActionBody: button.title,
              Text: button.title,
              Columns: 6,
              Rows: 1,
            })),
          },
        },
      ];
    }
    case 'TEMPLATE':
      throw new PlatformCallError({
        transient: false,
        code: 'unsupported_content',
        message: 'CHAT_APP_C has no message templates',
      });
  }
}

async function mediaBodies(
  context: SendContext,
  content: Extract<OutboundContent, { type: 'MEDIA' }>,
): Promise<Body[]> {
  const caption = content.caption ?? '';
  const bodies: Body[] = [];
  const captionFits = caption.length <= PICTURE_TEXT_LIMIT;
  if (caption && (!captionFits || !/^image\//.test(content.media[0]?.mimeType ?? '')))
    bodies.push({ type: 'text', text: caption });
  for (const [index, item] of content.media.entries()) {
    if (/^image\/(jpeg|png|gif)$/.test(item.mimeType)) {
      bodies.push({ type: 'picture', media: item.url, text: index === 0 && captionFits ? caption : '' });
    } else if (item.mimeType === 'video/mp4') {
      bodies.push({ type: 'video', media: item.url, size: await mediaSize(context, item.url) });
    } else {
      bodies.push({
        type: 'file',
        media: item.url,
        size: await mediaSize(context, item.url),
        file_name: item.fileName,
      });
    }
  }
  return bodies;
}

/** The byte size Viber requires for video and file messages, from a HEAD of the (signed) media URL. */
async function mediaSize(context: SendContext, url: string): Promise<number> {
  const response = await callPlatform(url, { method: 'HEAD' }, context.timeoutMs);
  const size = Number(response.headers.get('content-length'));
  if (response.status >= 300 || !Number.isSafeInteger(size) || size <= 0) {
    throw new PlatformCallError({
      transient: response.status >= 500,
      code: 'media_size_unknown',
      message: `the media's size could not be read (HEAD answered ${response.status})`,
    });
  }
  return size;
}
