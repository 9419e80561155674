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
import { TelegramApi } from './api';
import { chatAppBCredentialsSchema, SECRET_TOKEN_PATTERN } from './credentials';
import { parseTelegramUpdate, telegramWebhookReply } from './parse';
import { sendTelegram } from './send';
import { ALLOWED_UPDATES, type TelegramFile, type TelegramUser } from './types';

export const SECRET_TOKEN_HEADER = 'x-telegram-bot-api-secret-token';

/** CHAT_APP_B: the Telegram Bot API shape (README.md in this folder cites what each call follows). */
export class ChatAppBAdapter implements PlatformAdapter {
  readonly type = ChannelType.CHAT_APP_B;
  readonly credentialsSchema = chatAppBCredentialsSchema;
  /** Telegram's bulk limit is about 30 messages per second per bot (its Bots FAQ); a chat itself ~1/s, bursts tolerated. */
  readonly rateLimit = { perSecond: 30, burst: 30 };
  readonly messagingWindowHours = undefined;
  readonly api: TelegramApi;

  constructor(private readonly options: AdapterOptions) {
    this.api = new TelegramApi(options.baseUrl, options.timeoutMs);
  }

  async validate(credentials: Record<string, string>): Promise<PlatformAccount> {
    const { botToken } = chatAppBCredentialsSchema.parse(credentials);
    const me = await this.api.call<TelegramUser>(botToken, 'getMe');
    return {
      externalId: String(me.id),
      displayName: me.username ? `@${me.username}` : me.first_name,
      details: { username: me.username ?? '', firstName: me.first_name },
    };
  }

  async registerWebhook(channel: ConnectedChannel, url: string): Promise<void> {
    if (!SECRET_TOKEN_PATTERN.test(channel.webhookSecret)) {
      throw new Error('CHAT_APP_B needs a webhook secret of 1–256 characters A-Za-z0-9_- (newChatAppBSecretToken)');
    }
    await this.api.call<boolean>(token(channel), 'setWebhook', {
      url,
      secret_token: channel.webhookSecret,
      allowed_updates: ALLOWED_UPDATES,
    });
  }

  async unregisterWebhook(channel: ConnectedChannel): Promise<void> {
    await this.api.call<boolean>(token(channel), 'deleteWebhook', { drop_pending_updates: false });
  }

  /** Telegram signs nothing; it presents the `secret_token` we set in this header on every delivery. */
  verify(channel: ConnectedChannel, request: InboundRequest): Verification {
    if (request.method !== 'POST') return { ok: false, reason: 'Telegram delivers updates by POST only' };
    const presented = request.headers[SECRET_TOKEN_HEADER];
    if (!presented) return { ok: false, reason: `${SECRET_TOKEN_HEADER} missing` };
    return secretsEqual(presented, channel.webhookSecret)
      ? { ok: true }
      : { ok: false, reason: `${SECRET_TOKEN_HEADER} does not match` };
  }

  /** A button tap is answered in the webhook's response (decision 0131): no extra call, no spinner left turning. */
  webhookReply(_channel: ConnectedChannel, rawBody: Buffer): Record<string, unknown> | undefined {
    return telegramWebhookReply(rawBody);
  }

  parse(_channel: ConnectedChannel, rawBody: Buffer): InboundEvent[] {
    return parseTelegramUpdate(rawBody);
  }

  /** `getFile` names a path valid for at least an hour; bots can download files of up to 20 MB. */
  async fetchMedia(
    channel: ConnectedChannel,
    media: PlatformMediaRef,
  ): Promise<{ bytes: Buffer; mimeType?: string; fileName?: string }> {
    const file = await this.api.call<TelegramFile>(token(channel), 'getFile', { file_id: media.ref });
    if (!file.file_path) throw new Error('getFile answered no file_path (the file is larger than 20 MB)');
    const downloaded = await downloadFromPlatform(
      this.api.fileUrl(token(channel), file.file_path),
      {},
      this.options.timeoutMs,
    );
    const fileName = media.fileName ?? file.file_path.split('/').pop();
    const mimeType = media.mimeType ?? downloaded.mimeType;
    return { bytes: downloaded.bytes, ...(mimeType ? { mimeType } : {}), ...(fileName ? { fileName } : {}) };
  }

  send(channel: ConnectedChannel, message: OutboundMessage): Promise<SendResult> {
    return sendTelegram(this.api, token(channel), message);
  }
}

function token(channel: ConnectedChannel): string {
  const botToken = channel.credentials['botToken'];
  if (!botToken) throw new Error(`channel ${channel.channelId} has no bot token (disconnected?)`);
  return botToken;
}
