import { exchangeGraphCode, graphOAuthDialogUrl, longLivedToken, type GraphApp } from '../graph/oauth';
import type { SocialAppDAdapter } from './adapter';
import type { SocialAppDCredentials } from './credentials';

/** What the page connect asks for: list pages, message as them, subscribe the app to their webhooks. */
export const SOCIAL_APP_D_OAUTH_SCOPES = ['pages_show_list', 'pages_messaging', 'pages_manage_metadata'] as const;

/** The hosted connect URL of SOCIAL_APP_D (Facebook Login with the page permissions). */
export function socialAppDConnectUrl(input: {
  appId: string;
  redirectUri: string;
  state: string;
  dialogUrl?: string;
}): string {
  return graphOAuthDialogUrl({ ...input, scopes: SOCIAL_APP_D_OAUTH_SCOPES });
}

/** One page the person manages, ready to connect like own credentials. */
export interface SocialAppDConnectable {
  credentials: SocialAppDCredentials;
  name: string;
}

/**
 * Completes the hosted connect: the code for a user token, made long-lived, then the pages it manages with their page
 * tokens (`GET /me/accounts`), only those where the person has the MESSAGING task.
 */
export async function socialAppDPagesFromCode(
  adapter: SocialAppDAdapter,
  app: GraphApp,
  input: { code: string; redirectUri: string },
): Promise<SocialAppDConnectable[]> {
  const shortLived = await exchangeGraphCode(adapter.graph, app, input);
  const userToken = await longLivedToken(adapter.graph, app, shortLived);
  const pages = await adapter.graph.call<{
    data?: { id: string; name?: string; access_token?: string; tasks?: string[] }[];
  }>('me/accounts', {
    accessToken: userToken,
    appSecret: app.appSecret,
    query: { fields: 'id,name,access_token,tasks' },
  });
  return (pages.data ?? [])
    .filter((page) => page.access_token && (!page.tasks || page.tasks.includes('MESSAGING')))
    .map((page) => ({
      credentials: {
        pageAccessToken: page.access_token!,
        pageId: page.id,
        appId: app.appId,
        appSecret: app.appSecret,
      },
      name: page.name ?? page.id,
    }));
}
