import { z } from 'zod';

/**
 * What connects a CHAT_APP_C channel: the bot's authentication token ("app key"), shown to the bot's admins in Viber
 * (developers.viber.com/docs/api/rest-bot-api#authentication-token). It is the only credential: it authenticates our
 * calls and keys the HMAC Viber signs callbacks with. Checked by `get_account_info` before anything is stored.
 */
export const chatAppCCredentialsSchema = z.strictObject({
  authToken: z
    .string()
    .trim()
    .regex(
      /^[A-Za-z0-9-]{16,128}$/,
      'a Viber authentication token looks like 445da6az1s345z78-dazcczb2542zv51a-e0vc5fva17480im9',
    ),
});
