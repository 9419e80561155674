import { z } from 'zod';
import { baseConfigSchema, checkKafkaSecurity, loadConfig, type ConfigSource } from '@svc/kit';
import { DEFAULT_REQUEST_LIMITS } from './plugins/request-limits';
import { DEFAULT_CAPACITY, DEFAULT_REFILL_PER_SECOND } from './plugins/cost-budget-plugin';
import { appsOfSubgraphs, endpointVariable } from './subgraphs';

/** Gateway settings the embedded stack reads too (its gateway runs in the stack's process). */
export const gatewayTuningSchema = z.object({
  /** Tokens of a key's cost budget for the expensive reads (docs/decisions/0033-gateway-cost-budget.md). */
  GATEWAY_COST_BUDGET: z.coerce.number().positive().default(DEFAULT_CAPACITY),
  /** Tokens a budget gets back per second. */
  GATEWAY_COST_REFILL_PER_SECOND: z.coerce.number().positive().default(DEFAULT_REFILL_PER_SECOND),
});
export type GatewayTuning = z.infer<typeof gatewayTuningSchema>;

export const gatewayConfigSchema = baseConfigSchema
  // The gateway verifies no principal tokens (it only signs), so it holds no JWKS.
  .omit({
    DB_URL: true,
    DB_POOL_SIZE: true,
    DB_MIGRATE: true,
    GRPC_PORT: true,
    GRPC_HOST: true,
    HTTP_PORT: true,
    SVC_TRUST_JWKS: true,
  })
  .extend(gatewayTuningSchema.shape)
  .extend({
    /** The gateway's private key signing principal tokens (JWK or PKCS#8 PEM); issuer `gateway`. */
    SVC_SIGNING_KEY: z.string().min(1),
    PORT: z.coerce.number().int().min(0).max(65535).default(4000),
    IDENTITY_GRPC_URL: z.string().min(1),
    INBOX_GRPC_URL: z.string().min(1),
    /** Schema introspection for authenticated callers (field suggestions stay blocked either way). */
    GATEWAY_INTROSPECTION: z.stringbool().default(true),
    /** GraphiQL for browsers at /graphql (operations still need credentials); the embedded stack turns it on. */
    GATEWAY_EXPLORER: z.stringbool().default(false),
    /** Seconds an authenticated credential stays cached; revocations through any gateway evict at once. */
    GATEWAY_AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
    /** Largest uploaded file (createMedia, uploadMultipleMedia); keep it equal to the inbox's MEDIA_MAX_BYTES. */
    UPLOAD_MAX_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(16 * 1024 * 1024),
    UPLOAD_MAX_FILES: z.coerce.number().int().positive().default(10),
    /** Proxies in front of the gateway that append to X-Forwarded-For (an ingress: 1); 0 ignores the header. */
    GATEWAY_TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
    /** Largest JSON request body; multipart uploads are bounded by UPLOAD_MAX_BYTES × UPLOAD_MAX_FILES instead. */
    GATEWAY_MAX_BODY_BYTES: z.coerce.number().int().positive().default(DEFAULT_REQUEST_LIMITS.maxBodyBytes),
  })
  .superRefine(checkKafkaSecurity);

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export function gatewayConfig(env: ConfigSource = process.env): GatewayConfig {
  return loadConfig(gatewayConfigSchema, env);
}

/** Each subgraph's endpoint from `<NAME>_GRPC_URL` (e.g. INBOX_GRPC_URL=inbox:50051); all are required. */
export function serviceEndpoints(env: ConfigSource = process.env): Record<string, string> {
  const apps = appsOfSubgraphs();
  const schema = z.object(Object.fromEntries(apps.map((app) => [endpointVariable(app), z.string().min(1)])));
  const parsed = loadConfig(schema, env) as Record<string, string>;
  return Object.fromEntries(apps.map((app) => [app, parsed[endpointVariable(app)] as string]));
}
