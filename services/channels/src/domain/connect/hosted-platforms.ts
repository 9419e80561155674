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
  credentialsFromCode(code: string, redirectUri: string): Promise<Record<string, string>>;
}

const refused = (code: string, message: string) => new PlatformCallError({ transient: false, code, message });

function appOf(appId: string, appSecret: string): GraphApp | undefined {
  return appId && appSecret ? { appId, appSecret } : undefined;
}

/** CHAT_APP_A's Embedded Signup: the first number shared becomes the channel (`chatAppANumbersFromCode`). */
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
    async credentialsFromCode(code, redirectUri) {
      const [first] = await chatAppANumbersFromCode(adapter, app!, { code, redirectUri });
      if (!first) throw refused('no_phone_number', 'no WhatsApp Business phone number was shared');
      return { ...first.credentials };
    },
  };
}

/**
 * SOCIAL_APP_D's page connect: the first page granted becomes the channel, with the page token read through the
 * long-lived user token (`socialAppDPagesFromCode`), so it does not expire with the login's short-lived one.
 */
function socialAppDHostedConnect(config: ChannelsConfig, adapter: SocialAppDAdapter): HostedConnectPlatform {
  const app = appOf(config.SOCIAL_APP_D_APP_ID, config.SOCIAL_APP_D_APP_SECRET);
  return {
    type: ChannelType.SOCIAL_APP_D,
    app,
    dialogUrl: (input) =>
      socialAppDConnectUrl({ ...input, appId: app!.appId, dialogUrl: config.SOCIAL_APP_D_DIALOG_URL }),
    async credentialsFromCode(code, redirectUri) {
      const [first] = await socialAppDPagesFromCode(adapter, app!, { code, redirectUri });
      if (!first) throw refused('no_page', 'no page was shared');
      return { ...first.credentials };
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
