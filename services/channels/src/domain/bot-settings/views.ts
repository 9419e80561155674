import type {
  ChatAppBBotAdminRights,
  ChatAppBBotCommandScope,
  ChatAppBBotMenuButton,
} from '@svc/proto/channels/v1/bot_settings';

/** Telegram's answers, read back into the API's shapes. */
export interface TelegramMenuButton {
  type: string;
  text?: string;
  web_app?: { url: string };
}

export function menuButtonView(button: TelegramMenuButton): ChatAppBBotMenuButton {
  return {
    type: button.type.toUpperCase(),
    ...(button.text !== undefined ? { text: button.text } : {}),
    ...(button.web_app ? { webAppUrl: button.web_app.url } : {}),
  };
}

export function adminRightsView(rights: Record<string, boolean | undefined>): ChatAppBBotAdminRights {
  const flag = (name: string) => rights[name] === true;
  return {
    isAnonymous: flag('is_anonymous'),
    canManageChat: flag('can_manage_chat'),
    canDeleteMessages: flag('can_delete_messages'),
    canManageVideoChats: flag('can_manage_video_chats'),
    canRestrictMembers: flag('can_restrict_members'),
    canPromoteMembers: flag('can_promote_members'),
    canChangeInfo: flag('can_change_info'),
    canInviteUsers: flag('can_invite_users'),
    canPostStories: flag('can_post_stories'),
    canEditStories: flag('can_edit_stories'),
    canDeleteStories: flag('can_delete_stories'),
    canPostMessages: flag('can_post_messages'),
    canEditMessages: flag('can_edit_messages'),
    canPinMessages: flag('can_pin_messages'),
    canManageTopics: flag('can_manage_topics'),
  };
}

/** The scope read, as the API spells it (absent: DEFAULT). */
export function scopeView(scope: Record<string, unknown> | undefined): ChatAppBBotCommandScope {
  if (!scope) return { type: 'DEFAULT' };
  return {
    type: String(scope['type']).toUpperCase(),
    ...(scope['chat_id'] !== undefined ? { chatId: String(scope['chat_id']) } : {}),
    ...(scope['user_id'] !== undefined ? { userId: String(scope['user_id']) } : {}),
  };
}
