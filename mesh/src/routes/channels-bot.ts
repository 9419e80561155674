import type { Route } from './route';

/** ChatAppB bot settings: each root field one RPC of BotSettingsService, one Bot API method (bot_settings.proto). */
export const channelsBotRoutes: Record<string, Route> = {
  channelChatAppBBotSettings: { service: 'channelsBot', method: 'GetChatAppBBotSettings' },
  updateChatAppBBotName: { service: 'channelsBot', method: 'UpdateChatAppBBotName' },
  updateChatAppBBotDescription: { service: 'channelsBot', method: 'UpdateChatAppBBotDescription' },
  updateChatAppBBotShortDescription: { service: 'channelsBot', method: 'UpdateChatAppBBotShortDescription' },
  setChatAppBBotCommands: { service: 'channelsBot', method: 'SetChatAppBBotCommands' },
  deleteChatAppBBotCommands: { service: 'channelsBot', method: 'DeleteChatAppBBotCommands' },
  setChatAppBBotMenuButton: { service: 'channelsBot', method: 'SetChatAppBBotMenuButton' },
  setChatAppBBotDefaultAdminRights: { service: 'channelsBot', method: 'SetChatAppBBotDefaultAdminRights' },
};
