import { z } from 'zod';
import { SECRET_KEYS_FORMAT, loadConfig, secretKeysSetting, serviceConfigSchema, type ConfigSource } from '@svc/kit';

/** Every setting; `channelsConfigSchema` adds the rules a serving production process must meet. */
export const channelsSettingsSchema = serviceConfigSchema.extend({
  /**
   * Key-encryption keys of the web integrations' identity secrets and the platform channels' credentials and webhook
   * secrets (docs/decisions/0075, 0121; sealed as decision 0014
   * seals webhook secrets): `<keyId>:<base64 32 bytes>,…`; the first seals, all open. Required in production;
   * without it a development install keeps a generated key in a file.
   */
  CHANNELS_SECRETS_KEYS: secretKeysSetting,
  /**
   * Where a development install keeps its generated key when CHANNELS_SECRETS_KEYS is unset. Default: next to the
   * SQLite file of DB_URL, else `.data/channels-secrets.key`.
   */
  CHANNELS_SECRETS_KEY_FILE: z.string().optional(),
  /** contacts (platform users' contacts) and inbox (chats, messages, media, delivery status), host:port. */
  CONTACTS_GRPC_URL: z.string().default(''),
  INBOX_GRPC_URL: z.string().default(''),
  /**
   * The public base URL the messaging platforms deliver webhooks to (`<it>/channels/in/<channelId>`) and the hosted
   * connect flow returns to. Empty: `http://localhost:<PORT>` (development only; platforms cannot reach it).
   */
  CHANNELS_PUBLIC_URL: z.union([z.url(), z.literal('')]).default(''),
  /** Each platform's API base URL (issue 16): the real one by default; tests point them at `tests/fakes/`. */
  CHAT_APP_A_API_URL: z.url().default('https://graph.facebook.com/v23.0'),
  CHAT_APP_B_API_URL: z.url().default('https://api.telegram.org'),
  CHAT_APP_C_API_URL: z.url().default('https://chatapi.viber.com/pa'),
  SOCIAL_APP_D_API_URL: z.url().default('https://graph.facebook.com/v23.0'),
  /**
   * The hosted connect (docs/decisions/0122): the platform app whose dialog a CHAT_APP_A business (Embedded Signup) or
   * a SOCIAL_APP_D page admin goes through, and which exchanges the returned code. Unset app id or secret: that kind's
   * partnerChannelConnectUrl answers FAILED_PRECONDITION. The secret also keys the signed state (HKDF), so rotating it
   * voids connect URLs in flight.
   */
  CHAT_APP_A_APP_ID: z.string().trim().default(''),
  CHAT_APP_A_APP_SECRET: z.string().trim().default(''),
  /** Embedded Signup's configuration id (Facebook Login for Business); empty: the dialog asks for the scopes. */
  CHAT_APP_A_CONFIG_ID: z.string().trim().default(''),
  CHAT_APP_A_DIALOG_URL: z.url().default('https://www.facebook.com/v23.0/dialog/oauth'),
  SOCIAL_APP_D_APP_ID: z.string().trim().default(''),
  SOCIAL_APP_D_APP_SECRET: z.string().trim().default(''),
  SOCIAL_APP_D_DIALOG_URL: z.url().default('https://www.facebook.com/v23.0/dialog/oauth'),
  /**
   * The verify token of the installation app's webhook callback `<CHANNELS_PUBLIC_URL>/channels/in/app/chat-app-a`
   * (`…/social-app-d`), which serves every hosted-connected channel of the kind (decision 0146): the platform's GET
   * `hub.*` check must present it. CHAT_APP_A: set the app's callback URL and this token in its dashboard; SOCIAL_APP_D:
   * the hosted connect sets them on the app. Empty: the endpoint is off (404) and hosted-connected channels are given
   * their own `/channels/in/<id>` like own-credentials ones (one app callback then serves only one of them).
   */
  CHAT_APP_A_WEBHOOK_VERIFY_TOKEN: z.string().trim().default(''),
  SOCIAL_APP_D_WEBHOOK_VERIFY_TOKEN: z.string().trim().default(''),
  /** A hosted connect URL is refused this long after it was made. */
  CHANNELS_CONNECT_STATE_TTL_SECONDS: z.coerce.number().int().min(60).max(3600).default(900),
  /** How often each replica deletes the hosted connect's expired state rows. */
  CHANNELS_CONNECT_STATE_SWEEP_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(600_000),
  /** Each call to a platform gives up after this long (a timeout is transient: retried with backoff). */
  PLATFORM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /** How often the delivery sender looks for due messages when nothing woke it (retries, resumed channels). */
  DELIVERY_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  /**
   * How long one send attempt holds its claim (decision 0141): longer than the slowest send (every part of a message,
   * each up to PLATFORM_TIMEOUT_MS). An attempt still unanswered after it is IN DOUBT: failed, never resent on its own.
   */
  DELIVERY_LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(180_000),
});

export const channelsConfigSchema = channelsSettingsSchema.refine(
  (config) => config.NODE_ENV !== 'production' || !!config.CHANNELS_SECRETS_KEYS,
  {
    path: ['CHANNELS_SECRETS_KEYS'],
    message: `required in production to encrypt identity secrets and platform credentials (${SECRET_KEYS_FORMAT})`,
  },
);
export type ChannelsConfig = z.infer<typeof channelsSettingsSchema>;

/** The service's settings; `migrating` (the `main.js migrate` Job) does not need the keys. */
export function channelsConfig(env: ConfigSource = process.env, { migrating = false } = {}): ChannelsConfig {
  return loadConfig(migrating ? channelsSettingsSchema : channelsConfigSchema, env);
}
