// First: tracing (when the OTEL_* variables turn it on) must patch grpc-js, http, koa, kafkajs and mysql2 as they load.
import '@svc/kit/tracing/register';
import Koa from 'koa';
import { createServer } from 'node:http';
import {
  PrincipalSigner,
  callPolicyOf,
  createBus,
  createLogger,
  keepConnectionsAlive,
  metricsRegistry,
  opsRouter,
  stopOnSignals,
  withRawRoutes,
} from '@svc/kit';
import { gatewayConfig, serviceEndpoints } from './config';
import { createGateway } from './gateway';
import { DEFAULT_REQUEST_LIMITS } from './plugins/request-limits';

/** The gateway as its own deployment: `/graphql` plus `/healthz`, `/readyz` and `/metrics` on PORT. */
async function main(): Promise<void> {
  const config = gatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const bus = createBus(config, logger);
  await bus.start();
  const gateway = await createGateway({
    services: serviceEndpoints(),
    signer: PrincipalSigner.fromSetting('gateway', config.SVC_SIGNING_KEY, config.SVC_SIGNING_KEY_ID),
    bus,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    logger,
    introspection: config.GATEWAY_INTROSPECTION,
    explorer: config.GATEWAY_EXPLORER,
    authCacheTtlMs: config.GATEWAY_AUTH_CACHE_SECONDS * 1000,
    uploads: { maxBytes: config.UPLOAD_MAX_BYTES, maxFiles: config.UPLOAD_MAX_FILES },
    trustedProxyHops: config.GATEWAY_TRUSTED_PROXY_HOPS,
    limits: { ...DEFAULT_REQUEST_LIMITS, maxBodyBytes: config.GATEWAY_MAX_BODY_BYTES },
    costBudget: { capacity: config.GATEWAY_COST_BUDGET, refillPerSecond: config.GATEWAY_COST_REFILL_PER_SECOND },
    callPolicy: callPolicyOf(config),
  });
  const app = new Koa();
  const ops = opsRouter({ ...gateway.readinessChecks(), 'gateway.bus': () => bus.healthy() }, metricsRegistry);
  app.use(ops.routes());
  const server = keepConnectionsAlive(
    createServer(withRawRoutes([gateway.route()], app.callback(), logger)),
    config.HTTP_KEEP_ALIVE_MS,
  ).listen(config.PORT);
  stopOnSignals(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await gateway.stop();
    await bus.stop();
  }, logger);
  logger.info({ port: config.PORT }, 'gateway started');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
