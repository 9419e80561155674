import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Services define their own series with the same client, on `metricsRegistry`. */
export { Counter, Histogram } from 'prom-client';

/** One registry per process; every series carries the `service` label so co-located services stay apart. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export const grpcServerDuration = new Histogram({
  name: 'svc_grpc_server_handling_seconds',
  help: 'Time to handle a unary gRPC call, by service, method and status code.',
  labelNames: ['service', 'method', 'code'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [metricsRegistry],
});

export const eventsPublished = new Counter({
  name: 'svc_outbox_events_relayed_total',
  help: 'Events relayed from a service outbox to the bus.',
  labelNames: ['service'] as const,
  registers: [metricsRegistry],
});
