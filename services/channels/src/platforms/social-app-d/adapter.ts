import { ChannelType } from '@svc/proto/channels/v1';
import {
  PlatformCallError,
  type AppLevelWebhook,
  type ConnectedChannel,
  type InboundEvent,
  type OutboundMessage,
  type PlatformAccount,
  type PlatformAdapter,
  type PlatformMediaRef,
  type SendResult,
} from '../adapter';
import { GraphPlatformAdapter } from '../graph/graph-adapter';
import { appAccessToken } from '../graph/oauth';
import { sendParts } from '../send-parts';
import { socialAppDCredentialsSchema, type SocialAppDCredentials } from './credentials';
import { parseSocialAppDWebhook } from './parse';
import { socialAppDMessages } from './payloads';

/** The page webhook fields the channel needs. */
export const SOCIAL_APP_D_WEBHOOK_FIELDS = [
  'messages',
  'messaging_postbacks',
  'message_deliveries',
  'message_reads',
] as const;

/**
 * SOCIAL_APP_D: a Messenger Platform-shaped page platform (README.md in this folder cites what it follows).
 * One channel is one page; sends are `messaging_type: RESPONSE` inside the 24 h standard window (decision 0127).
 */
export class SocialAppDAdapter extends GraphPlatformAdapter implements PlatformAdapter {
  readonly type = ChannelType.SOCIAL_APP_D;
  readonly credentialsSchema = socialAppDCredentialsSchema;
  /**
   * The Send API's page limit is a rolling budget (200 × engaged users per 24 h) rather than a rate; 10/s with a
   * burst of 20 keeps a busy page far from it and from error 613.
   */
  readonly rateLimit = { perSecond: 10, burst: 20 };
  readonly messagingWindowHours = 24;
  /** `GET /<PAGE_ID>` with the page token (and the app secret's proof): the token must be the page's. */
  async validate(raw: Record<string, string>): Promise<PlatformAccount> {
    const credentials = socialAppDCredentialsSchema.parse(raw);
    const page = await this.graph.call<{ id: string; name?: string }>(credentials.pageId, {
      accessToken: credentials.pageAccessToken,
      appSecret: credentials.appSecret,
      query: { fields: 'id,name' },
    });
    if (page.id !== credentials.pageId) {
      throw new PlatformCallError({ transient: false, code: 'page_mismatch', message: 'the token is not the page’s' });
    }
    return { externalId: page.id, displayName: page.name ?? page.id, details: { appId: credentials.appId } };
  }

  /**
   * Points the app's page webhook at this channel's URL with our verify token (`POST /<APP_ID>/subscriptions`, app
   * token), then subscribes the app to the page's messaging fields (`POST /<PAGE_ID>/subscribed_apps`, page token).
   * A hosted-connected page (`appLevel`, decision 0146) sets the installation app's one callback, the same URL and
   * token for every page, so connecting a second page never takes the first one's webhooks away.
   */
  async registerWebhook(channel: ConnectedChannel, url: string, appLevel?: AppLevelWebhook): Promise<void> {
    const credentials = this.credentials(channel);
    await this.graph.call(`${credentials.appId}/subscriptions`, {
      method: 'POST',
      accessToken: appAccessToken(credentials),
      body: {
        object: 'page',
        callback_url: url,
        verify_token: appLevel?.verifyToken ?? channel.webhookSecret,
        fields: SOCIAL_APP_D_WEBHOOK_FIELDS.join(','),
      },
    });
    await this.graph.call(`${credentials.pageId}/subscribed_apps`, {
      method: 'POST',
      accessToken: credentials.pageAccessToken,
      appSecret: credentials.appSecret,
      body: { subscribed_fields: SOCIAL_APP_D_WEBHOOK_FIELDS.join(',') },
    });
  }

  /** Unsubscribes the app from the page; the app's callback URL may serve other pages, so it is left alone. */
  async unregisterWebhook(channel: ConnectedChannel): Promise<void> {
    const credentials = this.credentials(channel);
    await this.graph.call(`${credentials.pageId}/subscribed_apps`, {
      method: 'DELETE',
      accessToken: credentials.pageAccessToken,
      appSecret: credentials.appSecret,
    });
  }

  parse(channel: ConnectedChannel, rawBody: Buffer): InboundEvent[] {
    return parseSocialAppDWebhook(channel, rawBody);
  }

  /** Attachment URLs are signed CDN links: downloaded as they are, no token. */
  async fetchMedia(_channel: ConnectedChannel, media: PlatformMediaRef) {
    const { bytes, mimeType } = await this.graph.download(media.ref);
    return { bytes, mimeType: mimeType ?? media.mimeType, fileName: media.fileName };
  }

  async send(channel: ConnectedChannel, message: OutboundMessage): Promise<SendResult> {
    const credentials = this.credentials(channel);
    return sendParts(socialAppDMessages(message), message.fromPart ?? 0, async (part) => {
      const answer = await this.graph.call<{ message_id?: string }>(`${credentials.pageId}/messages`, {
        method: 'POST',
        accessToken: credentials.pageAccessToken,
        appSecret: credentials.appSecret,
        body: { recipient: { id: message.recipient }, messaging_type: 'RESPONSE', message: part },
      });
      return answer.message_id;
    });
  }

  credentials(channel: ConnectedChannel): SocialAppDCredentials {
    return socialAppDCredentialsSchema.parse(channel.credentials);
  }
}
