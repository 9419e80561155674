import type { ServerResponse } from 'node:http';
import type { Logger, RawRoute } from '@svc/kit';
import { CONNECT_CALLBACK_PATH, ConnectCallbackError, type HostedConnect } from '../domain/connect/hosted';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(response: ServerResponse, status: number, title: string, detail: string): void {
  const body = Buffer.from(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
      `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></body></html>`,
  );
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(body.length),
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  });
  response.end(body);
}

function redirect(response: ServerResponse, base: string, params: Record<string, string>): void {
  const url = new URL(base);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  response.writeHead(303, { location: url.toString(), 'cache-control': 'no-store', 'content-length': '0' });
  response.end();
}

/**
 * `GET /channels/connect/callback`: where a platform's connect dialog returns (docs/decisions/0122). Completes the
 * connection, then sends the browser to the return URL the org gave (`?channelId=…`, or `?error=<reason>`), else
 * answers a small page. A refused state answers 400; the code and state are never logged.
 */
export function connectCallbackRoute(hosted: () => HostedConnect, logger: Logger): RawRoute {
  return {
    method: 'GET',
    path: /^\/channels\/connect\/callback\/?$/,
    handle: async (request, response) => {
      const query = Object.fromEntries(new URL(request.url ?? '/', 'http://channels').searchParams);
      try {
        const { channel, returnUrl } = await hosted().complete(query);
        if (returnUrl) return redirect(response, returnUrl, { channelId: channel.id });
        page(response, 200, 'Channel connected', `${channel.name} is connected. You can close this window.`);
      } catch (error) {
        if (!(error instanceof ConnectCallbackError)) {
          logger.error({ err: error }, 'hosted connect callback failed');
          return page(response, 500, 'Connection failed', 'Something went wrong; start the connection again.');
        }
        if (error.returnUrl)
          return redirect(response, error.returnUrl, { error: error.reason, message: error.message });
        page(response, 400, 'Connection refused', error.message);
      }
    },
  };
}

export { CONNECT_CALLBACK_PATH };
