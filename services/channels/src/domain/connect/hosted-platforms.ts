import { ChannelType } from '@svc/proto/channels/v1';
import type { ChannelsConfig } from '../../config';
import type { PlatformChannelType } from '../../entities/platform-channel';
import {
  ChatAppAAdapter,
  chatAppAConnectUrl,
  chatAppANumbersFromCode,
  PlatformCallError,
  SocialAppDAdapter,
  socialAppDConnectUrl,
  socialAppDPagesFromCode,
  type GraphApp,
  type PlatformAdapters,
} from '../../platforms';

/**
 * What the hosted connect needs of a kind: its app, its dialog, and how a returned code becomes the credentials the
 * kind's adapter connects with (the same ones a caller gives connectChatAppAChannel / connectSocialAppDChannel). The
 * dialog and the code exchange are the adapters' own (`platforms/<kind>/oauth.ts`): one implementation of each.
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
 * CHAT_APP_A's Embedded Signup: the numbers shared (`chatAppANumbersFromCode`); the first one not yet connected becomes
 * the channel, so a business that signs up again after adding a number connects the new one (decision 0146); with all
 * connected, the first (the connect then reauthorises it).
 */
function chatAppAHostedConnect(config: ChannelsConfig, adapter: ChatAppAAdapter): HostedConnectPlatform {
  const app = appOf(config.CHAT_APP_A_APP_ID, config.CHAT_APP_A_APP_SECRET);
  return {
    type: ChannelType.CHAT_APP_A,
    app,
    dialogUrl: (input) =>
      chatAppAConnectUrl({
        ...input,
        appId: app!.appId,
        dialogUrl: config.CHAT_APP_A_DIALOG_URL,
        configId: config.CHAT_APP_A_CONFIG_ID || undefined,
      }),
    async credentialsFromCode(code, redirectUri, isConnected) {
      const numbers = await chatAppANumbersFromCode(adapter, app!, { code, redirectUri });
      if (!numbers.length) throw refused('no_phone_number', 'no WhatsApp Business phone number was shared');
      for (const number of numbers)
        if (!(await isConnected(number.credentials.phoneNumberId ?? ''))) return { ...number.credentials };
      return { ...numbers[0]!.credentials };
    },
  };
}

/**
 * SOCIAL_APP_D's page connect: the first page granted that is not connected yet becomes the channel (else the first,
 * which the connect then reauthorises), with the page token read through the
 * long-lived user token (`socialAppDPagesFromCode`), so it does not expire with the login's short-lived one.
 */
function socialAppDHostedConnect(config: ChannelsConfig, adapter: SocialAppDAdapter): HostedConnectPlatform {
  const app = appOf(config.SOCIAL_APP_D_APP_ID, config.SOCIAL_APP_D_APP_SECRET);
  return {
    type: ChannelType.SOCIAL_APP_D,
    app,
    dialogUrl: (input) =>
      socialAppDConnectUrl({ ...input, appId: app!.appId, dialogUrl: config.SOCIAL_APP_D_DIALOG_URL }),
    async credentialsFromCode(code, redirectUri, isConnected) {
      const pages = await socialAppDPagesFromCode(adapter, app!, { code, redirectUri });
      if (!pages.length) throw refused('no_page', 'no page was shared');
      for (const page of pages) if (!(await isConnected(page.credentials.pageId ?? ''))) return { ...page.credentials };
      return { ...pages[0]!.credentials };
    },
  };
}

/** The kinds with a hosted connect whose adapter is registered (tests may register only some). */
export function hostedConnectPlatforms(
  config: ChannelsConfig,
  adapters: PlatformAdapters,
): ReadonlyMap<PlatformChannelType, HostedConnectPlatform> {
  const platforms = new Map<PlatformChannelType, HostedConnectPlatform>();
  const chatAppA = adapters.get(ChannelType.CHAT_APP_A);
  if (chatAppA instanceof ChatAppAAdapter)
    platforms.set(ChannelType.CHAT_APP_A, chatAppAHostedConnect(config, chatAppA));
  const socialAppD = adapters.get(ChannelType.SOCIAL_APP_D);
  if (socialAppD instanceof SocialAppDAdapter)
    platforms.set(ChannelType.SOCIAL_APP_D, socialAppDHostedConnect(config, socialAppD));
  return platforms;
}
