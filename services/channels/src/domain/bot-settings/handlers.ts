import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { BotSettingsServiceService } from '@svc/proto/channels/v1/bot_settings';
import type { BotSettings } from './bot-settings';

/** `svc.channels.v1.BotSettingsService`: each RPC one Bot API method (bot_settings.proto). */
export function botSettingsService(botSettings: BotSettings, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof BotSettingsServiceService> = {
    getChatAppBBotSettings: (request, { principal }) => botSettings.get(principal, request),
    updateChatAppBBotName: (request, { principal }) => botSettings.updateName(principal, request),
    updateChatAppBBotDescription: (request, { principal }) => botSettings.updateDescription(principal, request),
    updateChatAppBBotShortDescription: (request, { principal }) =>
      botSettings.updateShortDescription(principal, request),
    setChatAppBBotCommands: (request, { principal }) => botSettings.setCommands(principal, request),
    deleteChatAppBBotCommands: (request, { principal }) => botSettings.deleteCommands(principal, request),
    setChatAppBBotMenuButton: (request, { principal }) => botSettings.setMenuButton(principal, request),
    setChatAppBBotDefaultAdminRights: (request, { principal }) => botSettings.setDefaultAdminRights(principal, request),
  };
  return implement('channels', BotSettingsServiceService, handlers, deps);
}
