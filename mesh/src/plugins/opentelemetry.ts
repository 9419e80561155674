import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { tracingStarted } from '@svc/kit';

/**
 * The part of @graphql-hive/plugin-opentelemetry used here. Its CommonJS typings refer to its ESM ones, whose
 * GatewayPlugin tsc does not unify with the one this CommonJS package sees, so the boundary is typed here.
 */
interface OpenTelemetryPluginModule {
  useOpenTelemetry(options: { useContextManager?: boolean; traces?: boolean }): GatewayPlugin;
}

/**
 * Hive Gateway's own OpenTelemetry plugin (spans for the GraphQL phases and each subgraph call, under the HTTP span),
 * only when this process started tracing (kit `tracing/register`); off, it is neither loaded nor in the plugin list.
 * It uses the tracer provider and context manager the kit's SDK registered.
 */
export function openTelemetryPlugins(): GatewayPlugin[] {
  if (!tracingStarted()) return [];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { useOpenTelemetry } = require('@graphql-hive/plugin-opentelemetry') as OpenTelemetryPluginModule;
  return [useOpenTelemetry({ useContextManager: true, traces: true })];
}
