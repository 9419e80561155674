import type { IncomingMessage } from 'node:http';
import { Forbidden, InvalidArgument, sendJson, type RawRoute } from '@svc/kit';
import type { Backends } from '../domain/backends';
import type { Integrations } from '../domain/integrations';
import { bearerOf, type SessionTokens } from '../domain/session-tokens';
import { corsHeaders, originAllowed } from '../http/cors';
import { errorAnswer } from '../http/errors';
import { viewOf } from '../http/routes';
import type { RealtimeHub } from './hub';

export interface RealtimeRouteDeps {
  hub: () => RealtimeHub;
  tokens: SessionTokens;
  integrations: Integrations;
  backends: Backends;
  widgetOrigin: string;
}

/**
 * `GET /api/web/realtime/:chatId`: the chat's SSE stream (docs/widget-api.md). Authenticated by the session token in
 * the Authorization header (fetch streaming; never a credential in the URL: docs/decisions/0088). `Last-Event-ID`
 * (or `?lastEventId=`, for clients that cannot set it) replays what came after it. Served on node:http ahead of Koa:
 * an open stream keeps no per-request Koa context alive.
 */
export function realtimeRoute(deps: RealtimeRouteDeps): RawRoute {
  return {
    method: 'GET',
    path: /^\/api\/web\/realtime\/([^/]+)$/,
    handle: async (request, response, [chatId = '']) => {
      // A same-origin request (the frame document's) is not a CORS question (routes.ts allowOrigin).
      const origin = header(request, 'sec-fetch-site') === 'same-origin' ? undefined : header(request, 'origin');
      let headers: Record<string, string> = {};
      try {
        const claims = await deps.tokens.verify(bearerOf(header(request, 'authorization')));
        const found = await deps.integrations.active(claims.publicKey);
        if (found.integration.id !== claims.channelId) throw new Forbidden('the session is not of this integration');
        if (origin) {
          if (!originAllowed(origin, found.integration.allowedOrigins, deps.widgetOrigin)) {
            sendJson(response, 403, errorAnswer(new Forbidden('this origin may not use this integration')).body);
            return;
          }
          headers = corsHeaders(origin);
        }
        const visitor = { orgId: claims.orgId, channelId: claims.channelId, contactId: claims.contactId };
        // Only a chat this visitor may read (NOT_FOUND otherwise, the same for another visitor's chat).
        const chat = await deps.backends.getVisitorChat(visitor, chatId);
        const after = lastEventIdOf(request) ?? chat.lastEventSeq;
        deps.hub().open(chatId, visitor, viewOf(found), response, after, headers);
      } catch (error) {
        const answer = errorAnswer(error);
        if (origin && !answer.body.error.reason) Object.assign(headers, corsHeaders(origin));
        sendJson(response, answer.status, answer.body, { ...headers, ...answer.headers });
      }
    },
  };
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The sequence number the client already has, if it says (Last-Event-ID header, else the query). */
function lastEventIdOf(request: IncomingMessage): number | undefined {
  const query = new URL(request.url ?? '/', 'http://localhost').searchParams.get('lastEventId');
  const value = header(request, 'last-event-id') ?? query ?? undefined;
  if (value === undefined || value === '') return undefined;
  const seq = Number(value);
  if (!Number.isInteger(seq) || seq < 0) throw new InvalidArgument('Last-Event-ID is a sequence number');
  return seq;
}
