export { ChannelsApp, channelsKeyring, type ChannelsDeps } from './app';
export { channelsConfig, channelsConfigSchema, channelsSettingsSchema, type ChannelsConfig } from './config';
export { channelsData } from './data';
export { CHANNELS_TOPIC } from './domain/events';
