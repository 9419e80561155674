import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

/**
 * A route served straight on node:http, ahead of Koa. Only for a public hot path — the inbound webhook endpoint,
 * thousands of requests per second, and the gateway's GraphQL endpoint — where Koa's per-request context, delegation
 * and middleware chain were ~8 % of the CPU per request (docs/performance.md); every other route goes through Koa.
 */
export interface RawRoute {
  /** An HTTP method, or `*` for every method (a handler that answers each method itself, as Yoga does). */
  method: string;
  /** Matched against the path without its query string; capture groups are handed to `handle`, URI-decoded. */
  path: RegExp;
  handle(request: IncomingMessage, response: ServerResponse, params: string[]): Promise<void>;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Writes a JSON body with its length (no chunked encoding for a few hundred bytes). */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = Buffer.from(JSON.stringify(body));
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(payload.length),
  });
  response.end(payload);
}

/** The request listener: the first raw route whose method and path match, else `fallback` (Koa's callback). */
export function withRawRoutes(routes: RawRoute[], fallback: RequestListener, logger: Logger): RequestListener {
  if (!routes.length) return fallback;
  return (request, response) => {
    const url = request.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    for (const route of routes) {
      if (route.method !== '*' && request.method !== route.method) continue;
      const match = route.path.exec(path);
      if (!match) continue;
      route.handle(request, response, match.slice(1).map(decoded)).catch((error: unknown) => {
        // What Koa would have answered: the error's own HTTP status (raw-body's 400 for an aborted body), else 500.
        const status = (error as { status?: unknown }).status;
        const code = typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
        if (code >= 500) logger.error({ err: error, path }, 'raw route failed');
        if (response.headersSent) response.destroy();
        else sendJson(response, code, { message: code >= 500 ? 'Internal Server Error' : 'Bad Request' });
      });
      return;
    }
    fallback(request, response);
  };
}
