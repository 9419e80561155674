import { chatAppACredentialsSchema } from './chat-app-a/credentials';
import { chatAppBCredentialsSchema } from './chat-app-b/credentials';
import { chatAppCCredentialsSchema } from './chat-app-c/credentials';
import { socialAppDCredentialsSchema } from './social-app-d/credentials';

/**
 * Every field name a platform secret travels under, for the logger to redact: the credentials each kind connects with
 * (read off the adapters' own schemas, so a new credential is covered when its schema names it), the whole
 * `credentials` object, the channel's webhook secret, and the names the platforms' protocols carry secrets in.
 */
export const PLATFORM_SECRET_LOG_KEYS: readonly string[] = [
  ...new Set([
    ...[
      chatAppACredentialsSchema,
      chatAppBCredentialsSchema,
      chatAppCCredentialsSchema,
      socialAppDCredentialsSchema,
    ].flatMap((schema) => Object.keys(schema.shape)),
    'credentials',
    'webhookSecret',
    // CHAT_APP_B setWebhook / header; Graph subscriptions, code exchange and calls; CHAT_APP_C's header.
    'secret_token',
    'x-telegram-bot-api-secret-token',
    'verify_token',
    'access_token',
    'client_secret',
    'fb_exchange_token',
    'appsecret_proof',
    'x-viber-auth-token',
    'auth_token',
  ]),
];
