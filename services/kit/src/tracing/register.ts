/**
 * `import '@svc/kit/tracing/register'` as the FIRST import of a main (or `node -r @svc/kit/tracing/register`): starts
 * tracing when the `OTEL_*` variables ask for it, before the libraries it instruments are loaded. Nothing else of the
 * kit is loaded here, since the kit's index requires grpc-js, koa, kafkajs and mysql2.
 */
import { startTracing } from './sdk';

startTracing(process.env);
