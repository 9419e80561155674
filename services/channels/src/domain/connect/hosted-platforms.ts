import { ChannelType } from '@svc/proto/channels/v1';
import type { ChannelsConfig } from '../../config';
import type { PlatformChannelType } from '../../entities/platform-channel';
import { PlatformCallError } from '../../platforms/adapter';
import { GraphClient } from '../../platforms/graph/client';
import { exchangeGraphCode, graphOAuthDialogUrl, type GraphApp } from '../../platforms/graph/oauth';

/**
 * What the hosted connect needs of a kind: its app, its dialog, and how a returned code becomes the credentials the
 * kind's adapter connects with (the same ones a caller gives connectChatAppAChannel / connectSocialAppDChannel).
 */
export interface HostedConnectPlatform {
  readonly type: PlatformChannelType;
  /** Undefined: the app id or secret is not configured (the hosted connect of this kind is off). */
  readonly app: GraphApp | undefined;
  dialogUrl(input: { redirectUri: string; state: string }): string;
  /** `isConnected`: whether an account id of this kind already feeds a connected channel (decision 0146). */
  credentialsFromCode(
    code: string,
    redirectUri: string,
    isConnected: (accountId: string) => Promise<boolean>,
  ): Promise<Record<string, string>>;
}

const refused = (code: string, message: string) => new PlatformCallError({ transient: false, code, message });

function appOf(appId: string, appSecret: string): GraphApp | undefined {
  return appId && appSecret ? { appId, appSecret } : undefined;
}

/**
 * CHAT_APP_A's Embedded Signup: the business grants our app its WhatsApp Business Account; the code exchanged gives a
 * business token, `debug_token` names the granted account (granular scope `whatsapp_business_management`), and its
 * first phone number becomes the channel
 * (https://developers.facebook.com/docs/whatsapp/embedded-signup/implementation — "exchange the code", "get the WABA ID
 * from debug_token", "get phone numbers"). The first number not yet connected becomes the channel, so a business
 * that signs up again after adding a number connects the new one (decision 0146); with all connected, the first
 * (the connect then reauthorises it).
 */
class ChatAppAHostedConnect implements HostedConnectPlatform {
  readonly type = ChannelType.CHAT_APP_A;
  readonly app: GraphApp | undefined;
  private readonly graph: GraphClient;

  constructor(private readonly config: ChannelsConfig) {
    this.app = appOf(config.CHAT_APP_A_APP_ID, config.CHAT_APP_A_APP_SECRET);
    this.graph = new GraphClient({ baseUrl: config.CHAT_APP_A_API_URL, timeoutMs: config.PLATFORM_TIMEOUT_MS });
  }

  dialogUrl(input: { redirectUri: string; state: string }): string {
    return graphOAuthDialogUrl({
      dialogUrl: this.config.CHAT_APP_A_DIALOG_URL,
      appId: this.app!.appId,
      ...input,
      scopes: ['whatsapp_business_management', 'whatsapp_business_messaging', 'business_management'],
      configId: this.config.CHAT_APP_A_CONFIG_ID || undefined,
    });
  }

  async credentialsFromCode(
    code: string,
    redirectUri: string,
    isConnected: (accountId: string) => Promise<boolean>,
  ): Promise<Record<string, string>> {
    const app = this.app!;
    const accessToken = await exchangeGraphCode(this.graph, app, { code, redirectUri });
    const debug = await this.graph.call<{
      data?: { granular_scopes?: { scope: string; target_ids?: string[] }[] };
    }>('debug_token', { accessToken: `${app.appId}|${app.appSecret}`, query: { input_token: accessToken } });
    const businessAccountId = debug.data?.granular_scopes?.find((s) => s.scope === 'whatsapp_business_management')
      ?.target_ids?.[0];
    if (!businessAccountId) throw refused('no_business_account', 'no WhatsApp Business Account was shared');
    const numbers = await this.graph.call<{ data?: { id: string }[] }>(`${businessAccountId}/phone_numbers`, {
      accessToken,
      appSecret: app.appSecret,
      query: { fields: 'id' },
    });
    let phoneNumberId = numbers.data?.[0]?.id;
    for (const number of numbers.data ?? []) {
      if (await isConnected(number.id)) continue;
      phoneNumberId = number.id;
      break;
    }
    if (!phoneNumberId) throw refused('no_phone_number', 'the shared business account has no phone number');
    return { accessToken, phoneNumberId, businessAccountId, appSecret: app.appSecret };
  }
}

/**
 * SOCIAL_APP_D's page connect (Facebook Login): the code exchanged gives a user token, `/me/accounts` the pages it
 * manages with their page tokens; the first page granted becomes the channel
 * (https://developers.facebook.com/docs/pages-api/getting-started — "get a page access token").
 */
class SocialAppDHostedConnect implements HostedConnectPlatform {
  readonly type = ChannelType.SOCIAL_APP_D;
  readonly app: GraphApp | undefined;
  private readonly graph: GraphClient;

  constructor(private readonly config: ChannelsConfig) {
    this.app = appOf(config.SOCIAL_APP_D_APP_ID, config.SOCIAL_APP_D_APP_SECRET);
    this.graph = new GraphClient({ baseUrl: config.SOCIAL_APP_D_API_URL, timeoutMs: config.PLATFORM_TIMEOUT_MS });
  }

  dialogUrl(input: { redirectUri: string; state: string }): string {
    return graphOAuthDialogUrl({
      dialogUrl: this.config.SOCIAL_APP_D_DIALOG_URL,
      appId: this.app!.appId,
      ...input,
      scopes: ['pages_show_list', 'pages_messaging', 'pages_manage_metadata'],
    });
  }

  async credentialsFromCode(code: string, redirectUri: string): Promise<Record<string, string>> {
    const app = this.app!;
    const userToken = await exchangeGraphCode(this.graph, app, { code, redirectUri });
    const pages = await this.graph.call<{ data?: { id: string; access_token?: string }[] }>('me/accounts', {
      accessToken: userToken,
      appSecret: app.appSecret,
      query: { fields: 'id,name,access_token' },
    });
    const page = pages.data?.find((p) => p.access_token);
    if (!page?.access_token) throw refused('no_page', 'no page was shared');
    return { pageAccessToken: page.access_token, pageId: page.id, appId: app.appId, appSecret: app.appSecret };
  }
}

export function hostedConnectPlatforms(
  config: ChannelsConfig,
): ReadonlyMap<PlatformChannelType, HostedConnectPlatform> {
  return new Map<PlatformChannelType, HostedConnectPlatform>([
    [ChannelType.CHAT_APP_A, new ChatAppAHostedConnect(config)],
    [ChannelType.SOCIAL_APP_D, new SocialAppDHostedConnect(config)],
  ]);
}
