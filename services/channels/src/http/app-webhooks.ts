import { ChannelType } from '@svc/proto/channels/v1';
import type { ChannelsConfig } from '../config';
import type { PlatformChannelType } from '../entities/platform-channel';
import type { AppLevelWebhook, ConnectedChannel, PlatformAccount } from '../platforms/adapter';
import { channelsPublicUrl, inboundWebhookUrl } from './urls';

type UrlConfig = Pick<ChannelsConfig, 'CHANNELS_PUBLIC_URL' | 'HTTP_PORT'>;

/**
 * The kinds whose platform app has one webhook callback for all the accounts it serves (decision 0146), and the path
 * segment of their installation-level endpoint `/channels/in/app/<segment>`.
 */
export const APP_WEBHOOK_SEGMENTS: ReadonlyMap<string, PlatformChannelType> = new Map<string, PlatformChannelType>([
  ['chat-app-a', ChannelType.CHAT_APP_A],
  ['social-app-d', ChannelType.SOCIAL_APP_D],
]);

/** The installation's own platform app of a kind (the hosted connect's), as its app-level endpoint needs it. */
export interface InstallationApp {
  type: PlatformChannelType;
  appSecret: string;
  verifyToken: string;
}

/**
 * Undefined when the kind has no app-level endpoint or its app secret or verify token is not configured: the endpoint
 * is off, and hosted-connected channels get their own URLs like any other (decision 0146).
 */
export function installationApp(config: ChannelsConfig, type: PlatformChannelType): InstallationApp | undefined {
  const [appSecret, verifyToken] =
    type === ChannelType.CHAT_APP_A
      ? [config.CHAT_APP_A_APP_SECRET, config.CHAT_APP_A_WEBHOOK_VERIFY_TOKEN]
      : type === ChannelType.SOCIAL_APP_D
        ? [config.SOCIAL_APP_D_APP_SECRET, config.SOCIAL_APP_D_WEBHOOK_VERIFY_TOKEN]
        : ['', ''];
  return appSecret && verifyToken ? { type, appSecret, verifyToken } : undefined;
}

/** `<public URL>/channels/in/app/<segment>`: what the installation's app is configured to call back. */
export function appWebhookUrl(config: UrlConfig, type: PlatformChannelType): string {
  const segment = [...APP_WEBHOOK_SEGMENTS].find(([, kind]) => kind === type)?.[0];
  if (!segment) throw new Error(`${ChannelType[type]} has no app-level webhook`);
  return `${channelsPublicUrl(config)}/channels/in/app/${segment}`;
}

/** The `PlatformAccount.details` key that marks a channel connected through the hosted connect (decision 0146). */
const CONNECTED_VIA = 'connectedVia';

export function markHostedConnect(account: PlatformAccount): PlatformAccount {
  return { ...account, details: { ...account.details, [CONNECTED_VIA]: 'hosted' } };
}

export function isHostedConnect(account: PlatformAccount): boolean {
  return account.details[CONNECTED_VIA] === 'hosted';
}

/**
 * Where a channel's webhooks are to arrive: a hosted-connected channel of a kind with an app-level endpoint is served
 * by the installation's app, so by that endpoint; any other by its own `/channels/in/<id>`.
 */
export function webhookTarget(
  config: ChannelsConfig,
  channel: ConnectedChannel,
): { url: string; appLevel?: AppLevelWebhook } {
  const app = isHostedConnect(channel.account) ? installationApp(config, channel.type) : undefined;
  if (!app) return { url: inboundWebhookUrl(config, channel.channelId) };
  return { url: appWebhookUrl(config, channel.type), appLevel: { verifyToken: app.verifyToken } };
}
