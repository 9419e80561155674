/**
 * How a public root field maps to a gRPC method of a service. Arguments pass through by name as the request message
 * (ts-proto's camelCase names) unless `request` reshapes them; the response message passes back unless `response`
 * picks a part of it. The gateway generates every public resolver from these tables (mesh/src/resolvers.ts).
 */
export interface Route {
  /** Subgraph name (mesh/src/subgraphs.ts). */
  service: string;
  /** The gRPC method name as in the .proto. */
  method: string;
  /** May be async, e.g. to read an uploaded file. */
  request?: (args: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>;
  response?: (result: Record<string, unknown>) => unknown;
  /**
   * Runs after success, e.g. to evict a revoked credential from the gateway's cache at once; `evict-org`: every cached
   * credential acting in the org named by the `id` argument (a deprovisioned client org).
   */
  effect?: 'evict-key' | 'evict-session' | 'evict-org';
}

export const ok = (result: Record<string, unknown>) => result.ok === true;
