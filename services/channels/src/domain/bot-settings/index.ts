export { BotSettings } from './bot-settings';
export { botSettingsService } from './handlers';
