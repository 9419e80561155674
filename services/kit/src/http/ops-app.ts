import Router from '@koa/router';
import Koa from 'koa';
import type { Registry } from 'prom-client';

export type ReadinessCheck = () => Promise<boolean>;

/**
 * The operational HTTP surface of every deployable: `/healthz` (the process is alive), `/readyz` (its own
 * dependencies answer: database, bus) and `/metrics` (Prometheus text format).
 */
export function opsRouter(checks: Record<string, ReadinessCheck>, registry: Registry): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const results = Object.fromEntries(
      await Promise.all(
        Object.entries(checks).map(async ([name, check]) => [name, await check().catch(() => false)] as const),
      ),
    );
    const ready = Object.values(results).every(Boolean);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not ready', checks: results };
  });
  router.get('/metrics', async (ctx) => {
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  return router;
}

export function opsApp(checks: Record<string, ReadinessCheck>, registry: Registry): Koa {
  const app = new Koa();
  const router = opsRouter(checks, registry);
  app.use(router.routes()).use(router.allowedMethods());
  return app;
}
