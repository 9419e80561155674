export { ChatAppBAdapter, SECRET_TOKEN_HEADER } from './adapter';
export { TelegramApi, classifyTelegramError } from './api';
export { chatAppBCredentialsSchema, newChatAppBSecretToken, SECRET_TOKEN_PATTERN } from './credentials';
export { telegramMessageId } from './parse';
export type { TelegramUpdate, TelegramMessage, TelegramUser } from './types';
