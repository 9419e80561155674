import { appAccessToken, exchangeGraphCode, graphOAuthDialogUrl, type GraphApp } from '../graph/oauth';
import type { ChatAppAAdapter } from './adapter';
import type { ChatAppACredentials } from './credentials';

/** What Embedded Signup asks the business for (https://developers.facebook.com/docs/whatsapp/embedded-signup/). */
export const CHAT_APP_A_OAUTH_SCOPES = ['whatsapp_business_management', 'whatsapp_business_messaging'] as const;

/**
 * The hosted connect URL of CHAT_APP_A (Embedded Signup through Facebook Login for Business): the installation's app
 * id, our callback, the signed state; `configId` is the Embedded Signup configuration when the app has one.
 */
export function chatAppAConnectUrl(input: {
  appId: string;
  redirectUri: string;
  state: string;
  configId?: string;
  dialogUrl?: string;
}): string {
  return graphOAuthDialogUrl({ ...input, scopes: CHAT_APP_A_OAUTH_SCOPES });
}

/** One number the signup shared, ready to connect like own credentials (validate, then register the webhook). */
export interface ChatAppAConnectable {
  credentials: ChatAppACredentials;
  displayPhoneNumber: string;
  verifiedName: string;
}

/**
 * Completes the hosted connect: the code for the business's token, then the business accounts the token was granted
 * (`GET /debug_token` with the app token: `granular_scopes[whatsapp_business_management].target_ids`), then each
 * account's numbers (`GET /<WABA_ID>/phone_numbers`). The app secret is the installation's: it signs the webhooks.
 */
export async function chatAppANumbersFromCode(
  adapter: ChatAppAAdapter,
  app: GraphApp,
  input: { code: string; redirectUri: string },
): Promise<ChatAppAConnectable[]> {
  const accessToken = await exchangeGraphCode(adapter.graph, app, input);
  const debug = await adapter.graph.call<{
    data?: { granular_scopes?: { scope: string; target_ids?: string[] }[] };
  }>('debug_token', { accessToken: appAccessToken(app), query: { input_token: accessToken } });
  const accounts = new Set(
    (debug.data?.granular_scopes ?? [])
      .filter((s) => s.scope === 'whatsapp_business_management')
      .flatMap((s) => s.target_ids ?? []),
  );
  const connectable: ChatAppAConnectable[] = [];
  for (const businessAccountId of accounts) {
    const numbers = await adapter.graph.call<{
      data?: { id: string; display_phone_number?: string; verified_name?: string }[];
    }>(`${businessAccountId}/phone_numbers`, {
      accessToken,
      appSecret: app.appSecret,
      query: { fields: 'id,display_phone_number,verified_name' },
    });
    for (const number of numbers.data ?? []) {
      connectable.push({
        credentials: { accessToken, phoneNumberId: number.id, businessAccountId, appSecret: app.appSecret },
        displayPhoneNumber: number.display_phone_number ?? number.id,
        verifiedName: number.verified_name ?? '',
      });
    }
  }
  return connectable;
}
