import Router from '@koa/router';
import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { bodyErrorAnswer } from './body-errors';
import { z } from 'zod';
import { Forbidden, InvalidArgument, clientAddress, type Logger } from '@svc/kit';
import { DeliveryStatus, Media } from '@svc/proto/inbox/v1';
import { VisitorMedia } from '@svc/proto/inbox/v1/visitor';
import { contactUnknownToInbox, type Backends, type VisitorIdentityOfSession } from '../domain/backends';
import type { Integration, Integrations } from '../domain/integrations';
import { visitorIdentitySchema } from '../domain/proofs';
import { fullConfig, gateConfig } from '../domain/public-config';
import { bearerOf, type SessionTokens } from '../domain/session-tokens';
import type { VisitorSession, Visitors } from '../domain/visitors';
import { visitorMessageJson, type VisitorView } from '../realtime/event-data';
import { corsHeaders, originAllowed, preflightHeaders } from './cors';
import { errorAnswer } from './errors';
import { frameDocument } from './frame';
import { addHelpRoutes, answerCacheable } from './help-routes';

export const API_PREFIX = '/api/web';
const JSON_LIMIT = '64kb';
/** Browsers and CDNs reuse a config this long; the ETag makes a later check a 304. */
const CONFIG_CACHE_CONTROL = 'public, max-age=60';

export interface RouteDeps {
  integrations: Integrations;
  visitors: Visitors;
  tokens: SessionTokens;
  backends: Backends;
  widgetOrigin: string;
  trustedProxyHops: number;
  mediaMaxBytes: number;
  logger: Logger;
}

const text = (max: number) => z.string().trim().min(1).max(max);
const publicKeyBody = z.object({ publicKey: text(200) });
const anonymousBody = publicKeyBody.extend({
  refreshToken: text(200).optional(),
  name: text(200).optional(),
  email: text(320).optional(),
  phone: text(40).optional(),
});
const refreshBody = publicKeyBody.extend({ refreshToken: text(200) });
const postMessageBody = z
  .object({
    clientMessageId: text(100),
    text: z.string().max(10_000).default(''),
    mediaIds: z.array(text(24)).max(10).default([]),
  })
  .refine((body) => body.text.trim() || body.mediaIds.length, { message: 'text or mediaIds', path: ['text'] });
const readBody = z.object({ messageId: text(24) });
const typingBody = z.object({ typing: z.boolean() });
const deliveredBody = z.object({ messageIds: z.array(text(24)).min(1).max(100) });
const historyQuery = z.object({
  cursor: z.string().max(500).optional(),
  isBefore: z.enum(['true', 'false']).optional(),
  limit: z.coerce.number().int().optional(),
});

/** The visitor a session route acts for, and its integration. */
interface SessionContext {
  visitor: VisitorIdentityOfSession;
  found: Integration;
  view: VisitorView;
}

/**
 * Every widget-api route but the SSE stream (realtime-route.ts), under /api/web (docs/widget-api.md). Each answer to a
 * browser passes the integration's CORS check (cors.ts); errors are `{ error: { code, message, field?, reason? } }`.
 */
export function widgetRouter(deps: RouteDeps): Router {
  const router = new Router({ prefix: API_PREFIX });
  router.use(answerErrors(deps.logger));
  router.use(endSessionOfUnknownContact(deps.visitors));
  // Sessions, tokens and messages are never stored by a browser or proxy cache; the config routes say otherwise.
  router.use(async (ctx, next) => {
    ctx.set('cache-control', 'no-store');
    await next();
  });
  router.options('/{*path}', (ctx) => {
    const origin = ctx.get('origin');
    if (origin) ctx.set(preflightHeaders(origin));
    ctx.status = 204;
  });

  router.get('/config/:publicKey', async (ctx) => {
    const found = await deps.integrations.active(ctx.params.publicKey ?? '');
    allowOrigin(ctx, found, deps.widgetOrigin);
    const body = JSON.stringify(
      ctx.query.view === 'gate' ? gateConfig(found.integration) : fullConfig(found.integration),
    );
    answerCacheable(ctx, body, CONFIG_CACHE_CONTROL);
  });

  addHelpRoutes(router, {
    integrations: deps.integrations,
    backends: deps.backends,
    allowOrigin: (ctx, found) => allowOrigin(ctx, found, deps.widgetOrigin),
    parse,
  });

  router.get('/frame/:publicKey', async (ctx) => {
    const found = await deps.integrations.active(ctx.params.publicKey ?? '');
    const frame = frameDocument(found.integration, deps.widgetOrigin);
    ctx.set(frame.headers);
    ctx.type = 'html';
    ctx.body = frame.html;
  });

  router.post('/visitor/start-anonymous', async (ctx) => {
    const body = parse(anonymousBody, await readJson(ctx));
    const found = await deps.integrations.active(body.publicKey);
    allowOrigin(ctx, found, deps.widgetOrigin);
    const address = clientAddress(
      ctx.req.socket.remoteAddress ?? '',
      ctx.get('x-forwarded-for') || null,
      deps.trustedProxyHops,
    );
    ctx.body = await sessionAnswer(deps, found, await deps.visitors.startAnonymous(found, body, address));
  });

  router.post('/visitor/start-identified', async (ctx) => {
    const raw = await readJson(ctx);
    const { publicKey } = parse(publicKeyBody, raw);
    const found = await deps.integrations.active(publicKey);
    allowOrigin(ctx, found, deps.widgetOrigin);
    const identity = parse(visitorIdentitySchema, raw);
    ctx.body = await sessionAnswer(deps, found, await deps.visitors.startIdentified(found, identity));
  });

  router.post('/visitor/refresh', async (ctx) => {
    const body = parse(refreshBody, await readJson(ctx));
    const found = await deps.integrations.active(body.publicKey);
    allowOrigin(ctx, found, deps.widgetOrigin);
    ctx.body = await sessionAnswer(deps, found, await deps.visitors.refresh(found, body.refreshToken));
  });

  router.post('/visitor/end', async (ctx) => {
    const body = parse(refreshBody, await readJson(ctx));
    const found = await deps.integrations.active(body.publicKey);
    allowOrigin(ctx, found, deps.widgetOrigin);
    await deps.visitors.end(found, body.refreshToken);
    ctx.status = 204;
  });

  router.get('/chats/:chatId', async (ctx) => {
    const { visitor } = await session(ctx, deps);
    ctx.body = await deps.backends.getVisitorChat(visitor, ctx.params.chatId ?? '');
  });

  router.get('/chats/:chatId/messages', async (ctx) => {
    const { visitor, view } = await session(ctx, deps);
    const query = parse(historyQuery, ctx.query);
    const page = await deps.backends.listVisitorMessages(visitor, ctx.params.chatId ?? '', {
      cursor: query.cursor,
      isBefore: query.isBefore === undefined ? undefined : query.isBefore === 'true',
      limit: query.limit,
    });
    ctx.body = { ...page, data: page.data.map((message) => visitorMessageJson(message, view)) };
  });

  router.post('/chats/:chatId/messages', async (ctx) => {
    const { visitor } = await session(ctx, deps);
    const body = parse(postMessageBody, await readJson(ctx));
    const chatId = ctx.params.chatId ?? '';
    const message = await deps.backends.receiveMessage(visitor, {
      chatId,
      text: body.text,
      mediaIds: body.mediaIds,
      externalId: body.clientMessageId,
    });
    ctx.status = 201;
    // The message itself reaches the visitor's streams as message.created (with its sequence number).
    ctx.body = { _id: message._id, chatId, clientMessageId: body.clientMessageId, createdAt: message.createdAt };
  });

  router.post('/chats/:chatId/read', async (ctx) => {
    const { visitor } = await session(ctx, deps);
    const body = parse(readBody, await readJson(ctx));
    ctx.body = await deps.backends.markVisitorRead(visitor, ctx.params.chatId ?? '', body.messageId);
  });

  router.post('/chats/:chatId/typing', async (ctx) => {
    const { visitor } = await session(ctx, deps);
    const body = parse(typingBody, await readJson(ctx));
    await deps.backends.setVisitorTyping(visitor, ctx.params.chatId ?? '', body.typing);
    ctx.status = 204;
  });

  router.post('/chats/:chatId/delivered', async (ctx) => {
    const { visitor } = await session(ctx, deps);
    const body = parse(deliveredBody, await readJson(ctx));
    const changed = await deps.backends.updateDeliveryStatus(
      visitor,
      ctx.params.chatId ?? '',
      body.messageIds,
      DeliveryStatus.DELIVERED,
    );
    ctx.body = { changedMessageIds: changed };
  });

  router.post('/media', async (ctx) => {
    const { visitor } = await session(ctx, deps);
    const content = await getRawBody(ctx.req, {
      limit: deps.mediaMaxBytes,
      length: ctx.get('content-length') || undefined,
    });
    if (!content.length) throw new InvalidArgument('the body is the file', { field: 'file' });
    const media = await deps.backends.createMedia(visitor, {
      fileName: fileNameOf(ctx.get('x-file-name')),
      declaredContentType: ctx.get('content-type'),
      content,
      caption: typeof ctx.query.caption === 'string' ? ctx.query.caption : undefined,
    });
    ctx.status = 201;
    // The visitor's view of a library item (no hash, no uploader): the fields VisitorMedia has.
    ctx.body = VisitorMedia.toJSON(VisitorMedia.fromJSON(Media.toJSON(media)));
  });

  return router;
}

/** The session of a visitor route: its bearer token, its integration (still active) and the origin check. */
async function session(ctx: Context, deps: RouteDeps): Promise<SessionContext> {
  const claims = await deps.tokens.verify(bearerOf(ctx.get('authorization')));
  ctx.state.visitorSessionId = claims.sessionId;
  const found = await deps.integrations.active(claims.publicKey);
  if (found.integration.id !== claims.channelId) throw new Forbidden('the session is not of this integration');
  allowOrigin(ctx, found, deps.widgetOrigin);
  return {
    visitor: { orgId: claims.orgId, channelId: claims.channelId, contactId: claims.contactId },
    found,
    view: viewOf(found),
  };
}

export function viewOf({ integration }: Integration): VisitorView {
  return {
    teamName: integration.branding?.teamName || integration.name,
    teamAvatarUrl: integration.branding?.teamAvatarUrl ?? '',
  };
}

/** A handshake's answer: the session, the visitor's chat and its latest messages (docs/widget-api.md). */
async function sessionAnswer(deps: RouteDeps, found: Integration, started: VisitorSession) {
  const chat = await deps.backends.getVisitorChat(started.visitor, started.chatId);
  const page = await deps.backends.listVisitorMessages(started.visitor, started.chatId, {});
  const view = viewOf(found);
  return {
    sessionToken: started.sessionToken,
    sessionExpiresAt: started.sessionExpiresAt,
    refreshToken: started.refreshToken,
    identified: started.identified,
    chat: { _id: chat._id, status: chat.status, unreadCount: chat.unreadCount, lastEventSeq: chat.lastEventSeq },
    messages: { ...page, data: page.data.map((message) => visitorMessageJson(message, view)) },
  };
}

/** 403 for a browser origin the integration does not allow; the CORS headers for one it does. */
function allowOrigin(ctx: Context, { integration }: Integration, widgetOrigin: string): void {
  const origin = ctx.get('origin');
  // The widget's frame document is served from here: its own calls are same-origin, never a CORS question
  // (Sec-Fetch-Site is set by the browser, a page cannot forge it; decision 0112).
  if (!origin || ctx.get('sec-fetch-site') === 'same-origin') return;
  if (!originAllowed(origin, integration.allowedOrigins, widgetOrigin)) {
    ctx.state.originRefused = true;
    throw new Forbidden('this origin may not use this integration', { reason: 'ORIGIN_NOT_ALLOWED' });
  }
  ctx.set(corsHeaders(origin));
}

/**
 * A visitor call the inbox refused because it does not know the session's contact (erased, widget-api's own erasure
 * not run yet): the session ends and the answer is 401, as once the erasure deleted it (decision 0174).
 */
function endSessionOfUnknownContact(visitors: Visitors) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (error) {
      const sessionId: unknown = ctx.state.visitorSessionId;
      if (typeof sessionId === 'string' && contactUnknownToInbox(error)) throw await visitors.contactGone(sessionId);
      throw error;
    }
  };
}

function answerErrors(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (error) {
      const bodyError = bodyErrorAnswer(error, ctx.req);
      const answer = bodyError
        ? {
            status: bodyError.status,
            headers: {},
            body: { error: { code: bodyError.code, message: bodyError.message } },
          }
        : errorAnswer(error);
      if (bodyError?.clientGone) logger.debug({ path: ctx.path }, 'client went away before its body was read');
      else if (answer.status >= 500) logger.error({ err: error, path: ctx.path }, 'widget-api request failed');
      const origin = ctx.get('origin');
      // An error says nothing about the integration: readable by the page, except the refusal of its origin.
      if (origin && !ctx.state.originRefused) ctx.set(corsHeaders(origin));
      ctx.set(answer.headers);
      ctx.status = answer.status;
      ctx.body = answer.body;
    }
  };
}

async function readJson(ctx: Context): Promise<unknown> {
  const raw = await getRawBody(ctx.req, {
    limit: JSON_LIMIT,
    length: ctx.get('content-length') || undefined,
    encoding: 'utf8',
  });
  try {
    return JSON.parse(raw || '{}') as unknown;
  } catch {
    throw new InvalidArgument('the body is not JSON');
  }
}

export function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new InvalidArgument(`${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`, {
    field: String(issue?.path[0] ?? ''),
  });
}

function fileNameOf(header: string): string {
  try {
    return decodeURIComponent(header) || 'attachment';
  } catch {
    return header || 'attachment';
  }
}
