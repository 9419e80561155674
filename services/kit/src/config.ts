import { z } from 'zod';
import { jwksSchema } from './trust/jwks';

/** Settings every service reads; services extend this schema with their own. */
export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `mysql://user:pass@host:port/database` or `sqlite:<path>` (`sqlite::memory:` for tests). */
  DB_URL: z.string().min(1),
  /** Comma-separated Kafka brokers; empty selects the in-process bus (embedded default only). */
  KAFKA_BROKERS: z.string().default(''),
  KAFKA_CLIENT_ID: z.string().default('svc-inbox'),
  KAFKA_SSL: z.stringbool().default(false),
  KAFKA_SASL_MECHANISM: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).optional(),
  KAFKA_SASL_USERNAME: z.string().optional(),
  KAFKA_SASL_PASSWORD: z.string().optional(),
  /** Prefix for topic names, so several installations can share one cluster. */
  KAFKA_TOPIC_PREFIX: z.string().default(''),
  /** The SQLite file of the in-process bus's durable log (embedded default only; the stack puts it in its data dir). */
  EMBEDDED_BUS_FILE: z.string().min(1).default('.data/bus.sqlite'),
  /** Attempts at handling a record (the first included) before it is dead-lettered to `<topic>.dlq`. */
  BUS_RETRY_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  /** Wait before a record's second attempt; doubles for each later one, up to 5 s. */
  BUS_RETRY_BACKOFF_MS: z.coerce.number().int().min(0).max(60_000).default(200),
  /** Public keys verifying principal tokens: a JWKS (`{"keys":[…]}`), several during a rotation (docs/decisions/0065). */
  SVC_TRUST_JWKS: jwksSchema,
  /** This deployable's private key signing the principal tokens it sends (JWK or PKCS#8 PEM); callers only. */
  SVC_SIGNING_KEY: z.string().min(1).optional(),
  /** The key id of SVC_SIGNING_KEY, `<issuer>.<suffix>`; unset: the JWK's own `kid`. */
  SVC_SIGNING_KEY_ID: z.string().min(1).optional(),
  GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50051),
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  GRPC_HOST: z.string().default('0.0.0.0'),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * How long an idle keep-alive HTTP connection stays open. Longer than the idle timeout of the proxies in front
   * (ingress-nginx and cloud load balancers keep upstream connections 60 s): if Node closed first (its default is
   * 5 s), a proxy could send a request on a connection being closed and answer 502.
   */
  HTTP_KEEP_ALIVE_MS: z.coerce.number().int().positive().default(65_000),
});

export type BaseConfig = z.infer<typeof baseConfigSchema>;

export class ConfigError extends Error {}

/** Validates env against a schema at start-up and names every offending variable. */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`);
  throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
}
