export { ChannelsApp, channelsKeyring, type ChannelsAppDeps } from './app';
export { channelsConfig, channelsConfigSchema, channelsSettingsSchema, type ChannelsConfig } from './config';
export { channelsData } from './data';
export { CHANNELS_TOPIC } from './domain/events';
export * as platforms from './platforms';
