import type * as SdkNode from '@opentelemetry/sdk-node';
import { loadConfig } from '../load-config';
import { tracingConfigSchema, tracingEnabled } from './config';
import { instrumentations } from './instrumentations';

let sdk: SdkNode.NodeSDK | undefined;

/**
 * Starts the OpenTelemetry SDK when the `OTEL_*` variables ask for it (`tracingEnabled`); the exporter, service name
 * and sampler come from the same variables, read by the SDK. Must run before grpc-js, node:http, koa, kafkajs and
 * mysql2 are first required, since the instrumentations patch them as they load: `tracing/register` does it first
 * thing in every main. Returns whether tracing is on.
 */
export function startTracing(env: NodeJS.ProcessEnv): boolean {
  if (sdk) return true;
  if (!tracingEnabled(loadConfig(tracingConfigSchema, env))) return false;
  // Loaded only when on: off, not one module of the SDK is required, so tracing off costs nothing.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof SdkNode;
  sdk = new NodeSDK({ instrumentations: instrumentations() });
  sdk.start();
  return true;
}

/** Whether this process started the SDK (the gateway adds Hive Gateway's OpenTelemetry plugin only then). */
export function tracingStarted(): boolean {
  return sdk !== undefined;
}

/** Exports the spans still buffered and stops the SDK (on shutdown). */
export async function stopTracing(): Promise<void> {
  const started = sdk;
  sdk = undefined;
  await started?.shutdown();
}
