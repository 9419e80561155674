import Router from '@koa/router';
import getRawBody from 'raw-body';
import { MAX_BODY_BYTES, type InboundPipeline } from '../domain/pipeline';

function isTooLarge(error: unknown): boolean {
  return (error as { type?: string }).type === 'entity.too.large';
}

/**
 * `POST /webhooks/in/:connectionId`. The raw body is read with a hard cap (reading stops past 100 KB), and the
 * signature is verified on those raw bytes; nothing parses the body before the pipeline does.
 */
export function ingressRouter(pipeline: () => InboundPipeline): Router {
  const router = new Router();
  router.post('/webhooks/in/:connectionId', async (ctx) => {
    let body: Buffer | undefined;
    try {
      body = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES });
    } catch (error) {
      if (!isTooLarge(error)) throw error;
      body = undefined;
      // The rest of an oversized body is never read: close the connection after answering.
      ctx.set('Connection', 'close');
    }
    const response = await pipeline().handle({
      connectionId: ctx.params.connectionId ?? '',
      headers: ctx.headers,
      body,
    });
    const requestId = ctx.get('x-request-id');
    if (requestId) ctx.set('x-request-id', requestId);
    if (response.headers) ctx.set(response.headers);
    ctx.status = response.status;
    ctx.body = response.body;
  });
  return router;
}
