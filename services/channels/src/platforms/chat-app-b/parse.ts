import type { InboundContent, InboundEvent, PlatformUser } from '../adapter';
import type { TelegramCallbackQuery, TelegramMessage, TelegramUpdate, TelegramUser } from './types';

/**
 * A bot's message ids are unique per chat only (core.telegram.org/bots/api#message), so ours joins both:
 * `<chat_id>:<message_id>`. The same form comes back from `send` so replies can quote either side.
 */
export function telegramMessageId(chatId: number | string, messageId: number | string): string {
  return `${chatId}:${messageId}`;
}

/** The Telegram message id inside our id, for `reply_parameters`. */
export function telegramMessageNumber(platformMessageId: string): number | undefined {
  const number = Number(platformMessageId.split(':')[1]);
  return Number.isSafeInteger(number) ? number : undefined;
}

/**
 * The events of one Telegram `Update` (decision 0131): private-chat messages from people; an edit becomes a new
 * message replying to the original (the inbox keeps what was first said); a tap on an inline button becomes a
 * BUTTON_REPLY. Groups and channels, bots, and update types we did not ask for produce nothing.
 */
export function parseTelegramUpdate(rawBody: Buffer): InboundEvent[] {
  const update = JSON.parse(rawBody.toString('utf8')) as TelegramUpdate;
  if (typeof update !== 'object' || update === null || typeof update.update_id !== 'number') {
    throw new Error('not a Telegram Update: update_id missing');
  }
  if (update.message) return messageEvent(update.message, undefined);
  if (update.edited_message) return messageEvent(update.edited_message, update.edited_message.edit_date ?? 0);
  if (update.callback_query) return callbackEvent(update.callback_query);
  return [];
}

function messageEvent(message: TelegramMessage, editDate: number | undefined): InboundEvent[] {
  if (message.chat.type !== 'private' || !message.from || message.from.is_bot) return [];
  const id = telegramMessageId(message.chat.id, message.message_id);
  const replyTo = message.reply_to_message
    ? telegramMessageId(message.chat.id, message.reply_to_message.message_id)
    : undefined;
  return [
    {
      kind: 'message',
      platformMessageId: editDate === undefined ? id : `${id}:edit:${editDate}`,
      from: platformUser(message.from),
      sentAt: new Date((editDate || message.date) * 1000),
      content: messageContent(message),
      ...(editDate !== undefined
        ? { replyToPlatformMessageId: id }
        : replyTo
          ? { replyToPlatformMessageId: replyTo }
          : {}),
    },
  ];
}

function callbackEvent(query: TelegramCallbackQuery): InboundEvent[] {
  if (query.from.is_bot || (query.message && query.message.chat.type !== 'private')) return [];
  const payload = query.data ?? '';
  const button = query.message?.reply_markup?.inline_keyboard?.flat().find((b) => b.callback_data === payload);
  return [
    {
      kind: 'message',
      platformMessageId: `callback:${query.id}`,
      from: platformUser(query.from),
      sentAt: new Date(),
      content: { type: 'BUTTON_REPLY', text: button?.text ?? payload, payload },
      ...(query.message
        ? { replyToPlatformMessageId: telegramMessageId(query.message.chat.id, query.message.message_id) }
        : {}),
    },
  ];
}

function platformUser(user: TelegramUser): PlatformUser {
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ');
  return {
    platformUserId: String(user.id),
    ...(name ? { name } : {}),
    ...(user.username ? { username: user.username } : {}),
  };
}

function messageContent(message: TelegramMessage): InboundContent {
  const caption = message.caption ? { caption: message.caption } : {};
  if (message.text !== undefined) return { type: 'TEXT', text: message.text };
  if (message.photo?.length) {
    // Telegram sends every size it made; the last is the largest.
    const largest = message.photo[message.photo.length - 1]!;
    return { type: 'MEDIA', media: [{ ref: largest.file_id, mimeType: 'image/jpeg' }], ...caption };
  }
  const file =
    message.document ?? message.video ?? message.audio ?? message.voice ?? message.video_note ?? message.animation;
  if (file) {
    const fallbackType = message.voice
      ? 'audio/ogg'
      : message.audio
        ? 'audio/mpeg'
        : message.document
          ? undefined
          : 'video/mp4';
    const mimeType = file.mime_type ?? fallbackType;
    return {
      type: 'MEDIA',
      media: [
        {
          ref: file.file_id,
          ...(mimeType ? { mimeType } : {}),
          ...(file.file_name ? { fileName: file.file_name } : {}),
        },
      ],
      ...caption,
    };
  }
  if (message.venue) {
    const { location, title, address } = message.venue;
    return { type: 'LOCATION', latitude: location.latitude, longitude: location.longitude, name: title, address };
  }
  if (message.location)
    return { type: 'LOCATION', latitude: message.location.latitude, longitude: message.location.longitude };
  if (message.contact) {
    const { first_name, last_name, phone_number } = message.contact;
    return {
      type: 'CONTACT_CARD',
      name: [first_name, last_name].filter(Boolean).join(' '),
      phones: [phone_number],
      emails: [],
    };
  }
  if (message.sticker)
    return { type: 'UNSUPPORTED', description: `a sticker${message.sticker.emoji ? ` ${message.sticker.emoji}` : ''}` };
  if (message.poll) return { type: 'UNSUPPORTED', description: `a poll: ${message.poll.question}` };
  if (message.dice)
    return { type: 'UNSUPPORTED', description: `a dice roll ${message.dice.emoji} ${message.dice.value}` };
  return { type: 'UNSUPPORTED', description: 'a message of a kind the inbox does not show' };
}

/**
 * The method call answering an update in the webhook's own response (core.telegram.org/bots/api — "Making requests
 * when getting updates"): a button tap is acknowledged with `answerCallbackQuery`, which stops the client's progress
 * indicator. Anything else, or a body that is not an update, has no reply.
 */
export function telegramWebhookReply(rawBody: Buffer): Record<string, unknown> | undefined {
  let update: Partial<TelegramUpdate> | null;
  try {
    update = JSON.parse(rawBody.toString('utf8')) as Partial<TelegramUpdate> | null;
  } catch {
    return undefined;
  }
  const id = update?.callback_query?.id;
  return typeof id === 'string' && id ? { method: 'answerCallbackQuery', callback_query_id: id } : undefined;
}
