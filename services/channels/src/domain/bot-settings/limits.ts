import { InvalidArgument } from '@svc/kit';
import type {
  ChatAppBBotAdminRights,
  ChatAppBBotCommand,
  ChatAppBBotCommandScope,
  ChatAppBBotMenuButton,
} from '@svc/proto/channels/v1/bot_settings';

/**
 * Telegram's own limits on bot settings (core.telegram.org/bots/api: setMyName, setMyDescription,
 * setMyShortDescription, BotCommand, setMyCommands, BotCommandScope, MenuButton), checked here so a bad value is a
 * BAD_USER_INPUT naming its field before anything reaches the platform.
 */
export const NAME_LIMIT = 64;
export const DESCRIPTION_LIMIT = 512;
export const SHORT_DESCRIPTION_LIMIT = 120;
export const COMMANDS_LIMIT = 100;
export const COMMAND_PATTERN = /^[a-z0-9_]{1,32}$/;
export const COMMAND_DESCRIPTION_LIMIT = 256;
/** Telegram documents no limit for a web app button's text; ours keeps it to a button's length. */
export const MENU_TEXT_LIMIT = 64;

export const SCOPE_TYPES = [
  'DEFAULT',
  'ALL_PRIVATE_CHATS',
  'ALL_GROUP_CHATS',
  'ALL_CHAT_ADMINISTRATORS',
  'CHAT',
  'CHAT_ADMINISTRATORS',
  'CHAT_MEMBER',
] as const;
export const MENU_BUTTON_TYPES = ['DEFAULT', 'COMMANDS', 'WEB_APP'] as const;

function invalid(field: string, message: string): never {
  throw new InvalidArgument(`${field}: ${message}`, { field });
}

/** A text of at most `max` characters (empty allowed: Telegram then removes the value for that language). */
export function settingText(value: string, field: string, max: number): string {
  const trimmed = value.trim();
  if (Array.from(trimmed).length > max) invalid(field, `at most ${max} characters`);
  return trimmed;
}

/** Telegram takes a two-letter ISO 639-1 code, or nothing (the default for every language without its own). */
export function languageCode(value: string | undefined, field = 'languageCode'): string {
  const code = (value ?? '').trim();
  if (code && !/^[a-z]{2}$/.test(code)) invalid(field, 'a two-letter ISO 639-1 language code in lower case, like "en"');
  return code;
}

export function commands(values: ChatAppBBotCommand[], field = 'commands'): { command: string; description: string }[] {
  if (values.length > COMMANDS_LIMIT) invalid(field, `at most ${COMMANDS_LIMIT} commands`);
  const seen = new Set<string>();
  return values.map((value, i) => {
    const command = value.command.trim().replace(/^\//, '');
    if (!COMMAND_PATTERN.test(command)) invalid(`${field}[${i}].command`, '1-32 characters: a-z, 0-9 and _ only');
    if (seen.has(command)) invalid(`${field}[${i}].command`, `"${command}" is listed twice`);
    seen.add(command);
    const description = value.description.trim();
    if (!description || Array.from(description).length > COMMAND_DESCRIPTION_LIMIT)
      invalid(`${field}[${i}].description`, `1-${COMMAND_DESCRIPTION_LIMIT} characters`);
    return { command, description };
  });
}

const CHAT_ID = /^-?\d{1,20}$|^@[A-Za-z][A-Za-z0-9_]{4,31}$/;

/** Telegram's BotCommandScope object; absent means `default`. */
export function commandScope(
  scope: ChatAppBBotCommandScope | undefined,
  field = 'scope',
): Record<string, unknown> | undefined {
  if (!scope) return undefined;
  const type = scope.type as (typeof SCOPE_TYPES)[number];
  if (!SCOPE_TYPES.includes(type)) invalid(`${field}.type`, `one of ${SCOPE_TYPES.join(', ')}`);
  const needsChat = type === 'CHAT' || type === 'CHAT_ADMINISTRATORS' || type === 'CHAT_MEMBER';
  const out: Record<string, unknown> = { type: type.toLowerCase() };
  if (needsChat) {
    const chatId = scope.chatId?.trim() ?? '';
    if (!CHAT_ID.test(chatId)) invalid(`${field}.chatId`, `${type} needs the chat's numeric id or its @username`);
    out['chat_id'] = chatId.startsWith('@') ? chatId : Number(chatId);
  } else if (scope.chatId) invalid(`${field}.chatId`, `${type} takes no chat`);
  if (type === 'CHAT_MEMBER') {
    const userId = scope.userId?.trim() ?? '';
    if (!/^\d{1,20}$/.test(userId)) invalid(`${field}.userId`, "CHAT_MEMBER needs the user's numeric id");
    out['user_id'] = Number(userId);
  } else if (scope.userId) invalid(`${field}.userId`, `${type} takes no user`);
  return out;
}

/** Telegram's MenuButton object. */
export function menuButton(button: ChatAppBBotMenuButton | undefined, field = 'menuButton'): Record<string, unknown> {
  if (!button) return invalid(field, 'required');
  const type = button.type as (typeof MENU_BUTTON_TYPES)[number];
  if (!MENU_BUTTON_TYPES.includes(type)) invalid(`${field}.type`, `one of ${MENU_BUTTON_TYPES.join(', ')}`);
  if (type !== 'WEB_APP') {
    if (button.text || button.webAppUrl) invalid(field, `${type} takes no text or webAppUrl`);
    return { type: type.toLowerCase() };
  }
  const text = (button.text ?? '').trim();
  if (!text || Array.from(text).length > MENU_TEXT_LIMIT) invalid(`${field}.text`, `1-${MENU_TEXT_LIMIT} characters`);
  let url: URL | undefined;
  try {
    url = new URL((button.webAppUrl ?? '').trim());
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:') invalid(`${field}.webAppUrl`, 'the https URL of the Web App');
  return { type: 'web_app', text, web_app: { url: url.href } };
}

/** Telegram's ChatAdministratorRights: every documented flag, false unless given. */
export function adminRights(rights: ChatAppBBotAdminRights): Record<string, boolean> {
  return {
    is_anonymous: rights.isAnonymous,
    can_manage_chat: rights.canManageChat,
    can_delete_messages: rights.canDeleteMessages,
    can_manage_video_chats: rights.canManageVideoChats,
    can_restrict_members: rights.canRestrictMembers,
    can_promote_members: rights.canPromoteMembers,
    can_change_info: rights.canChangeInfo,
    can_invite_users: rights.canInviteUsers,
    can_post_stories: rights.canPostStories,
    can_edit_stories: rights.canEditStories,
    can_delete_stories: rights.canDeleteStories,
    can_post_messages: rights.canPostMessages,
    can_edit_messages: rights.canEditMessages,
    can_pin_messages: rights.canPinMessages,
    can_manage_topics: rights.canManageTopics,
  };
}
