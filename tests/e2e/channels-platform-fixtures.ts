import { FakeChatAppA } from '../fakes/chat-app-a';
import { FakeChatAppB } from '../fakes/chat-app-b';
import { FakeChatAppC } from '../fakes/chat-app-c';
import { FakeSocialAppD } from '../fakes/social-app-d';
import { StackHarness } from '../support/stack-harness';

export const CHANNEL_FIELDS =
  'id type status name accountDisplayName accountId aiAutoReply connectedAt createdAt updatedAt authorizationError';

export interface ChannelView {
  id: string;
  type: string;
  status: string;
  name: string;
  accountDisplayName: string;
  accountId: string;
  aiAutoReply: boolean;
  connectedAt: string;
  createdAt: string;
  updatedAt: string;
  authorizationError: string;
}

export const CONNECT_B = `mutation($i: ConnectChatAppBChannelInput!) { connectChatAppBChannel(input: $i) { ${CHANNEL_FIELDS} } }`;
export const CONNECT_C = `mutation($i: ConnectChatAppCChannelInput!) { connectChatAppCChannel(input: $i) { ${CHANNEL_FIELDS} } }`;
export const CONNECT_A = `mutation($i: ConnectChatAppAChannelInput!) { connectChatAppAChannel(input: $i) { ${CHANNEL_FIELDS} } }`;
export const CONNECT_D = `mutation($i: ConnectSocialAppDChannelInput!) { connectSocialAppDChannel(input: $i) { ${CHANNEL_FIELDS} } }`;
export const CONNECT_URL = `mutation($i: PartnerChannelConnectUrlInput!) { partnerChannelConnectUrl(input: $i) { url expiresAt } }`;
export const LIST = `{ channels { ${CHANNEL_FIELDS} } }`;
export const PAUSE = `mutation($id: ID!) { pauseChannel(id: $id) { ${CHANNEL_FIELDS} } }`;
export const RESUME = `mutation($id: ID!) { resumeChannel(id: $id) { ${CHANNEL_FIELDS} } }`;
export const UPDATE = `mutation($id: ID!, $i: UpdateChannelInput!) { updateChannel(id: $id, input: $i) { ${CHANNEL_FIELDS} } }`;
export const DISCONNECT = `mutation($id: ID!) { disconnectChannel(id: $id) { disconnected id } }`;

/** The four fake platforms and a stack whose channels service calls them, with hosted connect apps configured. */
export class PlatformStack {
  readonly a = new FakeChatAppA();
  readonly b = new FakeChatAppB();
  readonly c = new FakeChatAppC();
  readonly d = new FakeSocialAppD();
  harness!: StackHarness;

  async start(serviceEnv: NodeJS.ProcessEnv = {}): Promise<this> {
    await Promise.all([this.a.start(), this.b.start(), this.c.start(), this.d.start()]);
    this.harness = new StackHarness(
      {
        CHAT_APP_A_APP_ID: this.a.app.appId,
        CHAT_APP_A_APP_SECRET: this.a.app.appSecret,
        CHAT_APP_A_DIALOG_URL: this.a.dialogUrl,
        SOCIAL_APP_D_APP_ID: this.d.app.appId,
        SOCIAL_APP_D_APP_SECRET: this.d.app.appSecret,
        SOCIAL_APP_D_DIALOG_URL: this.d.dialogUrl,
        ...serviceEnv,
      },
      {},
      {
        platformUrls: {
          CHAT_APP_A_API_URL: this.a.url,
          CHAT_APP_B_API_URL: this.b.apiUrl,
          CHAT_APP_C_API_URL: this.c.apiUrl,
          SOCIAL_APP_D_API_URL: this.d.url,
        },
      },
    );
    await this.harness.start();
    return this;
  }

  async stop(): Promise<void> {
    await this.harness?.stop();
    await Promise.all([this.a.stop(), this.b.stop(), this.c.stop(), this.d.stop()]);
  }

  inboundUrl(channelId: string): string {
    return `${this.harness.url}/channels/in/${channelId}`;
  }
}
