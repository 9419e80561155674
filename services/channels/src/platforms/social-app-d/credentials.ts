import { z } from 'zod';

const id = (what: string) =>
  z
    .string()
    .trim()
    .regex(/^\d{1,30}$/, `${what} is the numeric id the platform shows`);

/**
 * What a caller gives to connect their own SOCIAL_APP_D page (decision 0126): a page access token (`pages_messaging`,
 * `pages_manage_metadata`), the page id (our account id), and the app's id and secret: the secret signs the webhooks,
 * the id + secret set the app's webhook subscription to this channel's URL.
 */
export const socialAppDCredentialsSchema = z.strictObject({
  pageAccessToken: z.string().trim().min(20, 'pageAccessToken looks too short').max(1024),
  pageId: id('pageId'),
  appId: id('appId'),
  appSecret: z
    .string()
    .trim()
    .regex(/^[0-9a-f]{32}$/i, 'appSecret is the 32 hex characters of the app dashboard'),
});
export type SocialAppDCredentials = z.infer<typeof socialAppDCredentialsSchema>;
