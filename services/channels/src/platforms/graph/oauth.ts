import type { GraphClient } from './client';

/**
 * The Facebook Login dialog of the hosted connect flows (CHAT_APP_A Embedded Signup, SOCIAL_APP_D page connect):
 * `https://www.facebook.com/<version>/dialog/oauth?client_id&redirect_uri&state&response_type=code&scope|config_id`
 * (https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow/). `dialogUrl` is configurable
 * like the API base URL so tests reach a fake.
 */
export function graphOAuthDialogUrl(input: {
  dialogUrl: string;
  appId: string;
  redirectUri: string;
  state: string;
  scopes: readonly string[];
  /** Embedded Signup's configuration id (Facebook Login for Business), when the app has one. */
  configId?: string;
}): string {
  const url = new URL(input.dialogUrl);
  url.searchParams.set('client_id', input.appId);
  url.searchParams.set('redirect_uri', input.redirectUri);
  url.searchParams.set('state', input.state);
  url.searchParams.set('response_type', 'code');
  if (input.configId) url.searchParams.set('config_id', input.configId);
  else url.searchParams.set('scope', input.scopes.join(','));
  return url.toString();
}

/** The app's own credentials, which exchange a code and inspect tokens. */
export interface GraphApp {
  appId: string;
  appSecret: string;
}

/**
 * `GET /oauth/access_token?client_id&client_secret&redirect_uri&code` → `{access_token, token_type, expires_in}`; the
 * redirect URI must be the dialog's, byte for byte.
 */
export async function exchangeGraphCode(
  client: GraphClient,
  app: GraphApp,
  input: { code: string; redirectUri: string },
): Promise<string> {
  const answer = await client.call<{ access_token: string }>('oauth/access_token', {
    query: { client_id: app.appId, client_secret: app.appSecret, redirect_uri: input.redirectUri, code: input.code },
  });
  return answer.access_token;
}

/** The app access token `<APP_ID>|<APP_SECRET>` Graph takes for app-level calls (debug_token, subscriptions). */
export function appAccessToken(app: GraphApp): string {
  return `${app.appId}|${app.appSecret}`;
}
