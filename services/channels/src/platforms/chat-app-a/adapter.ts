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
import { sendParts } from '../send-parts';
import { chatAppACredentialsSchema, type ChatAppACredentials } from './credentials';
import { parseChatAppAWebhook } from './parse';
import { chatAppAPayloads } from './payloads';

/** The webhook fields the channel needs (messages + statuses, template status updates). */
export const CHAT_APP_A_WEBHOOK_FIELDS = ['messages', 'message_template_status_update'] as const;

/**
 * CHAT_APP_A: a WhatsApp Business Cloud API-shaped platform (README.md in this folder cites what it follows).
 * One channel is one business phone number; its business account holds the templates and the webhook subscription.
 */
export class ChatAppAAdapter extends GraphPlatformAdapter implements PlatformAdapter {
  readonly type = ChannelType.CHAT_APP_A;
  readonly credentialsSchema = chatAppACredentialsSchema;
  /**
   * 80 messages/s per number is the platform's default throughput (inbound and outbound counted together); we keep
   * to a fifth of it for outbound so replies never starve, with a burst of 20.
   */
  readonly rateLimit = { perSecond: 16, burst: 20 };
  /** The customer service window: free-form messages only within 24 h of the user's last message. */
  readonly messagingWindowHours = 24;
  /** The phone number must exist for the token and belong to the business account; the app secret must match. */
  async validate(raw: Record<string, string>): Promise<PlatformAccount> {
    const credentials = chatAppACredentialsSchema.parse(raw);
    const auth = { accessToken: credentials.accessToken, appSecret: credentials.appSecret };
    const number = await this.graph.call<{ id: string; display_phone_number?: string; verified_name?: string }>(
      credentials.phoneNumberId,
      { ...auth, query: { fields: 'id,display_phone_number,verified_name,quality_rating' } },
    );
    const numbers = await this.graph.call<{ data?: { id: string }[] }>(
      `${credentials.businessAccountId}/phone_numbers`,
      { ...auth, query: { fields: 'id' } },
    );
    if (!(numbers.data ?? []).some((n) => n.id === credentials.phoneNumberId)) {
      throw new PlatformCallError({
        transient: false,
        code: 'phone_number_not_in_account',
        message: 'phoneNumberId is not a number of businessAccountId',
      });
    }
    return {
      externalId: number.id,
      displayName: number.display_phone_number ?? number.verified_name ?? number.id,
      details: {
        businessAccountId: credentials.businessAccountId,
        ...(number.verified_name ? { verifiedName: number.verified_name } : {}),
      },
    };
  }

  /**
   * Subscribes the app to the business account's webhooks with this channel's URL as the account's alternate
   * callback and our generated verify token (the platform verifies it with the `hub.*` handshake). A hosted-connected
   * number (`appLevel`, decision 0146) subscribes with no override: the installation app's own callback, configured in
   * its dashboard, serves every number of every business account it has (an override is per business account, so two
   * numbers of one account cannot each have their own URL).
   */
  async registerWebhook(channel: ConnectedChannel, url: string, appLevel?: AppLevelWebhook): Promise<void> {
    const credentials = this.credentials(channel);
    await this.graph.call(`${credentials.businessAccountId}/subscribed_apps`, {
      method: 'POST',
      accessToken: credentials.accessToken,
      appSecret: credentials.appSecret,
      body: appLevel ? {} : { override_callback_uri: url, verify_token: channel.webhookSecret },
    });
  }

  async unregisterWebhook(channel: ConnectedChannel): Promise<void> {
    const credentials = this.credentials(channel);
    await this.graph.call(`${credentials.businessAccountId}/subscribed_apps`, {
      method: 'DELETE',
      accessToken: credentials.accessToken,
      appSecret: credentials.appSecret,
    });
  }

  parse(channel: ConnectedChannel, rawBody: Buffer): InboundEvent[] {
    return parseChatAppAWebhook(channel, rawBody);
  }

  /** `GET /<MEDIA_ID>` names a short-lived URL; downloading it needs the same token. */
  async fetchMedia(channel: ConnectedChannel, media: PlatformMediaRef) {
    const credentials = this.credentials(channel);
    const info = await this.graph.call<{ url: string; mime_type?: string }>(media.ref, {
      accessToken: credentials.accessToken,
      appSecret: credentials.appSecret,
    });
    const { bytes, mimeType } = await this.graph.download(info.url, credentials.accessToken);
    return { bytes, mimeType: info.mime_type ?? media.mimeType ?? mimeType, fileName: media.fileName };
  }

  async send(channel: ConnectedChannel, message: OutboundMessage): Promise<SendResult> {
    const credentials = this.credentials(channel);
    return sendParts(chatAppAPayloads(message), message.fromPart ?? 0, async (payload) => {
      const answer = await this.graph.call<{ messages?: { id: string }[] }>(`${credentials.phoneNumberId}/messages`, {
        method: 'POST',
        accessToken: credentials.accessToken,
        appSecret: credentials.appSecret,
        body: payload,
      });
      return answer.messages?.[0]?.id;
    });
  }

  credentials(channel: ConnectedChannel): ChatAppACredentials {
    return chatAppACredentialsSchema.parse(channel.credentials);
  }
}
