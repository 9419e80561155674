import { createHmac } from 'node:crypto';
import { ChannelType } from '@svc/proto/channels/v1';
import type {
  ConnectedChannel,
  InboundEvent,
  InboundRequest,
  OutboundMessage,
  PlatformAccount,
  PlatformAdapter,
  PlatformMediaRef,
  SendResult,
  Verification,
} from '../adapter';
import { downloadFromPlatform, secretsEqual } from '../platform-http';
import type { AdapterOptions } from '../registry';
import { ViberApi } from './api';
import { chatAppCCredentialsSchema } from './credentials';
import { parseViberCallback } from './parse';
import { sendViber } from './send';
import { EVENT_TYPES, type ViberAccountInfo } from './types';

export const SIGNATURE_HEADER = 'x-viber-content-signature';

/** Viber's callback signature: hex HMAC-SHA256 of the raw body keyed with the account's authentication token. */
export function viberSignature(authToken: string, rawBody: Buffer | string): string {
  return createHmac('sha256', authToken).update(rawBody).digest('hex');
}

/** CHAT_APP_C: the Viber REST bot API shape (README.md in this folder cites what each call follows; decision 0130). */
export class ChatAppCAdapter implements PlatformAdapter {
  readonly type = ChannelType.CHAT_APP_C;
  readonly credentialsSchema = chatAppCCredentialsSchema;
  /** Viber publishes no per-second send limit for bots; 10/s per account is our pacing (decision 0133). */
  readonly rateLimit = { perSecond: 10, burst: 20 };
  readonly messagingWindowHours = undefined;
  readonly api: ViberApi;

  constructor(private readonly options: AdapterOptions) {
    this.api = new ViberApi(options.baseUrl, options.timeoutMs);
  }

  async validate(credentials: Record<string, string>): Promise<PlatformAccount> {
    const { authToken } = chatAppCCredentialsSchema.parse(credentials);
    const info = await this.api.call<ViberAccountInfo>(authToken, 'get_account_info');
    return {
      externalId: info.id,
      displayName: info.name,
      details: { uri: info.uri ?? '', ...(info.icon ? { icon: info.icon } : {}) },
    };
  }

  /**
   * `set_webhook` makes Viber post an `event: webhook` check to `url` before it answers; the check must be answered
   * 200, so the channel must be loadable by the inbound route (committed) before this is called.
   */
  async registerWebhook(channel: ConnectedChannel, url: string): Promise<void> {
    await this.api.call(authToken(channel), 'set_webhook', {
      url,
      event_types: EVENT_TYPES,
      send_name: true,
      send_photo: false,
    });
  }

  /** Removing the webhook is `set_webhook` with an empty URL. */
  async unregisterWebhook(channel: ConnectedChannel): Promise<void> {
    await this.api.call(authToken(channel), 'set_webhook', { url: '' });
  }

  verify(channel: ConnectedChannel, request: InboundRequest): Verification {
    if (request.method !== 'POST') return { ok: false, reason: 'Viber delivers callbacks by POST only' };
    const presented = request.headers[SIGNATURE_HEADER];
    if (!presented) return { ok: false, reason: `${SIGNATURE_HEADER} missing` };
    const token = channel.credentials['authToken'];
    if (!token) return { ok: false, reason: 'the channel has no authentication token' };
    return secretsEqual(presented.toLowerCase(), viberSignature(token, request.rawBody))
      ? { ok: true }
      : { ok: false, reason: `${SIGNATURE_HEADER} does not match the body` };
  }

  parse(_channel: ConnectedChannel, rawBody: Buffer): InboundEvent[] {
    return parseViberCallback(rawBody);
  }

  /** Viber's callbacks carry a media URL of its own store: fetched as is (no token). */
  async fetchMedia(
    _channel: ConnectedChannel,
    media: PlatformMediaRef,
  ): Promise<{ bytes: Buffer; mimeType?: string; fileName?: string }> {
    const downloaded = await downloadFromPlatform(media.ref, {}, this.options.timeoutMs);
    const mimeType = media.mimeType ?? downloaded.mimeType;
    return {
      bytes: downloaded.bytes,
      ...(mimeType ? { mimeType } : {}),
      ...(media.fileName ? { fileName: media.fileName } : {}),
    };
  }

  send(channel: ConnectedChannel, message: OutboundMessage): Promise<SendResult> {
    return sendViber(
      { api: this.api, authToken: authToken(channel), channel, timeoutMs: this.options.timeoutMs },
      message,
    );
  }
}

function authToken(channel: ConnectedChannel): string {
  const token = channel.credentials['authToken'];
  if (!token) throw new Error(`channel ${channel.channelId} has no authentication token (disconnected?)`);
  return token;
}
