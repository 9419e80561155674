import type { GraphClient } from './client';

/** Where the real platform's login dialog lives (the API's version); tests use the fake's `/dialog/oauth`. */
export const GRAPH_OAUTH_DIALOG_URL = 'https://www.facebook.com/v23.0/dialog/oauth';

/**
 * The Facebook Login dialog of the hosted connect flows (CHAT_APP_A Embedded Signup, SOCIAL_APP_D page connect):
 * `https://www.facebook.com/<version>/dialog/oauth?client_id&redirect_uri&state&response_type=code&scope|config_id`
 * (https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow/). `dialogUrl` is configurable
 * like the API base URL so tests reach a fake.
 */
export function graphOAuthDialogUrl(input: {
  /** Default: the real platform's dialog. */
  dialogUrl?: string;
  appId: string;
  redirectUri: string;
  state: string;
  scopes: readonly string[];
  /** Embedded Signup's configuration id (Facebook Login for Business), when the app has one. */
  configId?: string;
}): string {
  const url = new URL(input.dialogUrl ?? GRAPH_OAUTH_DIALOG_URL);
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

/**
 * A short-lived user token for a long-lived one (`grant_type=fb_exchange_token`, about 60 days); page tokens read with
 * a long-lived user token do not expire (https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived/).
 */
export async function longLivedToken(client: GraphClient, app: GraphApp, token: string): Promise<string> {
  const answer = await client.call<{ access_token: string }>('oauth/access_token', {
    query: {
      grant_type: 'fb_exchange_token',
      client_id: app.appId,
      client_secret: app.appSecret,
      fb_exchange_token: token,
    },
  });
  return answer.access_token;
}
