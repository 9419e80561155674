import type { IncomingMessage } from 'node:http';
import type * as Http from '@opentelemetry/instrumentation-http';
import type * as Grpc from '@opentelemetry/instrumentation-grpc';
import type * as KafkaJs from '@opentelemetry/instrumentation-kafkajs';
import type * as MySql2 from '@opentelemetry/instrumentation-mysql2';
import type * as Koa from '@opentelemetry/instrumentation-koa';

/** Probes and scrapes, every few seconds on every pod: not requests anyone follows. */
const OPS_PATHS = /^\/(healthz|readyz|metrics)(\?|$)/;

/**
 * The libraries the services speak through: node:http (webhooks, GraphQL, the ops routes), grpc-js between services,
 * kafkajs, mysql2 under TypeORM, and koa's middleware. Required only when tracing is on (see `startTracing`).
 */
export function instrumentations() {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof Http;
  const { GrpcInstrumentation } = require('@opentelemetry/instrumentation-grpc') as typeof Grpc;
  const { KafkaJsInstrumentation } = require('@opentelemetry/instrumentation-kafkajs') as typeof KafkaJs;
  const { MySQL2Instrumentation } = require('@opentelemetry/instrumentation-mysql2') as typeof MySql2;
  const { KoaInstrumentation } = require('@opentelemetry/instrumentation-koa') as typeof Koa;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (request: IncomingMessage) => OPS_PATHS.test(request.url ?? ''),
    }),
    new GrpcInstrumentation(),
    new KafkaJsInstrumentation(),
    new MySQL2Instrumentation(),
    new KoaInstrumentation(),
  ];
}
