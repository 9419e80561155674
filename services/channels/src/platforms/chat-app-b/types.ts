/**
 * The parts of the Telegram Bot API's objects this adapter reads or writes (core.telegram.org/bots/api#available-types).
 * Ids fit in a double: Telegram documents user and chat ids as "at most 52 significant bits".
 */

export interface TelegramUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
}

export interface TelegramChat {
  id: number;
  type: 'private' | 'group' | 'supergroup' | 'channel';
}

export interface TelegramFile {
  file_id: string;
  file_unique_id: string;
  file_size?: number;
  file_path?: string;
  file_name?: string;
  mime_type?: string;
}

export interface InlineKeyboardButton {
  text: string;
  callback_data?: string;
  url?: string;
}

export interface TelegramMessage {
  message_id: number;
  from?: TelegramUser;
  chat: TelegramChat;
  date: number;
  edit_date?: number;
  text?: string;
  caption?: string;
  photo?: TelegramFile[];
  document?: TelegramFile;
  video?: TelegramFile;
  audio?: TelegramFile;
  voice?: TelegramFile;
  video_note?: TelegramFile;
  animation?: TelegramFile;
  sticker?: TelegramFile & { emoji?: string };
  location?: { latitude: number; longitude: number };
  venue?: { location: { latitude: number; longitude: number }; title: string; address: string };
  contact?: { phone_number: string; first_name: string; last_name?: string; user_id?: number; vcard?: string };
  poll?: { question: string };
  dice?: { emoji: string; value: number };
  reply_to_message?: TelegramMessage;
  reply_markup?: { inline_keyboard?: InlineKeyboardButton[][] };
}

export interface TelegramCallbackQuery {
  id: string;
  from: TelegramUser;
  message?: TelegramMessage;
  data?: string;
}

/** One webhook delivery: exactly one of the optional fields is present. */
export interface TelegramUpdate {
  update_id: number;
  message?: TelegramMessage;
  edited_message?: TelegramMessage;
  callback_query?: TelegramCallbackQuery;
}

/** The update types `setWebhook` asks for; any other type Telegram might still deliver is ignored by `parse`. */
export const ALLOWED_UPDATES = ['message', 'edited_message', 'callback_query'] as const;
