import { z } from 'zod';

const id = (what: string) =>
  z
    .string()
    .trim()
    .regex(/^\d{1,30}$/, `${what} is the numeric id the platform shows`);

/**
 * What a caller gives to connect their own CHAT_APP_A number (decision 0125): a system-user access token with
 * `whatsapp_business_messaging` + `whatsapp_business_management`, the phone number id (our account id), the business
 * account id (templates, webhook subscription) and the app secret (signs the webhooks; checked through
 * `appsecret_proof` at connect).
 */
export const chatAppACredentialsSchema = z.strictObject({
  accessToken: z.string().trim().min(20, 'accessToken looks too short').max(1024),
  phoneNumberId: id('phoneNumberId'),
  businessAccountId: id('businessAccountId'),
  appSecret: z
    .string()
    .trim()
    .regex(/^[0-9a-f]{32}$/i, 'appSecret is the 32 hex characters of the app dashboard'),
});
export type ChatAppACredentials = z.infer<typeof chatAppACredentialsSchema>;
