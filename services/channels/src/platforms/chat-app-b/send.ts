import { PlatformCallError, type OutboundContent, type OutboundMessage, type SendResult } from '../adapter';
import { sendParts } from '../send-parts';
import type { TelegramApi } from './api';
import { telegramMessageId, telegramMessageNumber } from './parse';
import type { TelegramMessage } from './types';
import { textParts } from '../text-parts';

/** sendMessage's text limit and the caption limit of the send* media methods (core.telegram.org/bots/api#sendmessage). */
export const TEXT_LIMIT = 4096;
export const CAPTION_LIMIT = 1024;

type Call = { method: string; params: Record<string, unknown> };

/**
 * One outbound message as Bot API calls, sent in order (decision 0132): text longer than 4096 characters is split,
 * each media item is its own send* call by URL (Telegram fetches it), buttons are an inline keyboard whose
 * `callback_data` is the button id (≤ 64 bytes). A failure after some calls succeeded names them (`partsTaken`): the
 * retry resumes after them (`fromPart`), so no part is posted twice.
 */
export async function sendTelegram(api: TelegramApi, token: string, message: OutboundMessage): Promise<SendResult> {
  const reply = message.replyToPlatformMessageId ? telegramMessageNumber(message.replyToPlatformMessageId) : undefined;
  let calls: Call[];
  try {
    calls = telegramCalls(message.recipient, message.content);
  } catch (error) {
    if (error instanceof PlatformCallError) return { ok: false, error: error.error };
    throw error;
  }
  return sendParts(calls, message.fromPart ?? 0, async (call, index) => {
    const params =
      index === 0 && reply !== undefined
        ? { ...call.params, reply_parameters: { message_id: reply, allow_sending_without_reply: true } }
        : call.params;
    const sent = await api.call<TelegramMessage>(token, call.method, params);
    return telegramMessageId(sent.chat.id, sent.message_id);
  });
}

export function telegramCalls(chatId: string, content: OutboundContent): Call[] {
  switch (content.type) {
    case 'TEXT':
      return textParts(content.text, TEXT_LIMIT).map((text) => ({
        method: 'sendMessage',
        params: { chat_id: chatId, text },
      }));
    case 'MEDIA':
      return mediaCalls(chatId, content);
    case 'LOCATION':
      return [
        content.name && content.address
          ? {
              method: 'sendVenue',
              params: {
                chat_id: chatId,
                latitude: content.latitude,
                longitude: content.longitude,
                title: content.name,
                address: content.address,
              },
            }
          : {
              method: 'sendLocation',
              params: { chat_id: chatId, latitude: content.latitude, longitude: content.longitude },
            },
      ];
    case 'CONTACT_CARD': {
      const phone = content.phones[0];
      if (!phone) return telegramCalls(chatId, { type: 'TEXT', text: contactText(content) });
      const [first, ...rest] = content.name.split(' ');
      return [
        {
          method: 'sendContact',
          params: {
            chat_id: chatId,
            phone_number: phone,
            first_name: first || content.name || phone,
            ...(rest.length ? { last_name: rest.join(' ') } : {}),
          },
        },
      ];
    }
    case 'BUTTONS':
      return [
        {
          method: 'sendMessage',
          params: {
            chat_id: chatId,
            text: content.text,
            reply_markup: {
              inline_keyboard: content.buttons.map((button) => [{ text: button.title, callback_data: button.id }]),
            },
          },
        },
      ];
    case 'TEMPLATE':
      throw new PlatformCallError({
        transient: false,
        code: 'unsupported_content',
        message: 'CHAT_APP_B has no message templates',
      });
  }
}

function mediaCalls(chatId: string, content: Extract<OutboundContent, { type: 'MEDIA' }>): Call[] {
  const caption = content.caption ?? '';
  const calls: Call[] = content.media.map((item, index) => {
    const [method, field] = mediaMethod(item.mimeType);
    const itemCaption = index === 0 && caption.length <= CAPTION_LIMIT ? caption : '';
    return { method, params: { chat_id: chatId, [field]: item.url, ...(itemCaption ? { caption: itemCaption } : {}) } };
  });
  // A caption too long for a media call goes first as text, so nothing is cut.
  if (caption.length > CAPTION_LIMIT) return [...telegramCalls(chatId, { type: 'TEXT', text: caption }), ...calls];
  return calls;
}

/** Photos as photos, videos as videos, audio as audio; anything else (and GIFs, which sendPhoto re-encodes) as a document. */
function mediaMethod(mimeType: string): [string, string] {
  if (/^image\/(jpeg|png|webp)$/.test(mimeType)) return ['sendPhoto', 'photo'];
  if (mimeType === 'video/mp4') return ['sendVideo', 'video'];
  if (mimeType === 'audio/mpeg' || mimeType === 'audio/mp4' || mimeType === 'audio/x-m4a')
    return ['sendAudio', 'audio'];
  return ['sendDocument', 'document'];
}

function contactText(content: Extract<OutboundContent, { type: 'CONTACT_CARD' }>): string {
  return [content.name, ...content.phones, ...content.emails].filter(Boolean).join('\n');
}
