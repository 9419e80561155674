import { ChannelType } from '@svc/proto/channels/v1';
import type { ChannelsConfig } from '../config';
import type { PlatformChannelType } from '../entities/platform-channel';
import type { PlatformAdapter } from './adapter';
import { ChatAppAAdapter } from './chat-app-a';
import { SocialAppDAdapter } from './social-app-d';
import { ChatAppBAdapter } from './chat-app-b';
import { ChatAppCAdapter } from './chat-app-c';

export type PlatformAdapters = ReadonlyMap<PlatformChannelType, PlatformAdapter>;

/** What every adapter is built from: its base URL (configurable, so tests reach a fake) and the call timeout. */
export interface AdapterOptions {
  baseUrl: string;
  timeoutMs: number;
}

/** The adapters of the four platform kinds, on the configured base URLs. */
export function platformAdapters(config: ChannelsConfig): PlatformAdapters {
  const options = (baseUrl: string): AdapterOptions => ({ baseUrl, timeoutMs: config.PLATFORM_TIMEOUT_MS });
  return new Map<PlatformChannelType, PlatformAdapter>([
    // Each adapter registers here: [ChannelType.CHAT_APP_A, new ChatAppAAdapter(options(config.CHAT_APP_A_API_URL))], …
    [ChannelType.CHAT_APP_A, new ChatAppAAdapter(options(config.CHAT_APP_A_API_URL))],
    [ChannelType.SOCIAL_APP_D, new SocialAppDAdapter(options(config.SOCIAL_APP_D_API_URL))],
    [ChannelType.CHAT_APP_B, new ChatAppBAdapter(options(config.CHAT_APP_B_API_URL))],
    [ChannelType.CHAT_APP_C, new ChatAppCAdapter(options(config.CHAT_APP_C_API_URL))],
  ]);
}
