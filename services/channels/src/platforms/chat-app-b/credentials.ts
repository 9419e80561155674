import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * What connects a CHAT_APP_B channel: the bot token @BotFather gives, `<bot id>:<secret>`
 * (core.telegram.org/bots/features#botfather). Checked against the platform by `getMe` before anything is stored.
 */
export const chatAppBCredentialsSchema = z.strictObject({
  botToken: z
    .string()
    .trim()
    .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, 'a bot token looks like 123456789:AAE…, as @BotFather gives it'),
});

/** setWebhook's `secret_token`: 1–256 characters of `A-Za-z0-9_-`; 32 random bytes in base64url are 43 of them. */
export const SECRET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

export function newChatAppBSecretToken(): string {
  return randomBytes(32).toString('base64url');
}
