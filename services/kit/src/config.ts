import { z } from 'zod';
import { jwksSchema } from './trust/jwks';
import { kafkaBrokersSchema, checkKafkaSecurity, optionalSetting } from './bus/bus-settings';
import { DEFAULT_CALL_POLICY } from './grpc/call-policy';

/**
 * Settings every service reads; services extend this schema with their own (`serviceConfigSchema` adds the rules
 * across settings; keep this one a plain object so the gateway and tools can pick and omit from it).
 */
export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `mysql://user:pass@host:port/database` or `sqlite:<path>` (`sqlite::memory:` for tests). */
  DB_URL: z.string().min(1),
  /** Connections of each pod's MySQL-family pool. */
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  /** `skip`: the migration Job applied them (the chart sets it); `auto`: apply pending migrations at start. */
  DB_MIGRATE: z.enum(['auto', 'skip']).default('auto'),
  /** Comma-separated Kafka brokers, required: only the embedded stack passes IN_PROCESS_BUS instead. */
  KAFKA_BROKERS: kafkaBrokersSchema,
  KAFKA_CLIENT_ID: z.string().default('svc-inbox'),
  KAFKA_SSL: z.stringbool().default(false),
  /** SASL needs all three (`serviceConfigSchema` refuses a partial set); empty counts as unset. */
  KAFKA_SASL_MECHANISM: optionalSetting(z.enum(['plain', 'scram-sha-256', 'scram-sha-512'])),
  KAFKA_SASL_USERNAME: optionalSetting(z.string()),
  KAFKA_SASL_PASSWORD: optionalSetting(z.string()),
  /** Prefix for topic names, so several installations can share one cluster. */
  KAFKA_TOPIC_PREFIX: z.string().default(''),
  /**
   * How long a consumer group waits for a member that stopped heartbeating (a killed pod) before its partitions move
   * to the others: Kafka's own default, 30 s. The broker bounds it (group.min/max.session.timeout.ms, 6 s–30 min by
   * default); shorter moves a dead pod's partitions sooner and evicts a member stalled by a long pause sooner too.
   */
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6_000).max(1_800_000).default(30_000),
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
  /** Deadline of a call to another service (docs/decisions/0064-grpc-deadlines-and-retries.md). */
  GRPC_DEADLINE_MS: z.coerce.number().int().min(1).max(600_000).default(DEFAULT_CALL_POLICY.deadlineMs),
  /** Attempts at an idempotent call answered UNAVAILABLE, the first included (1: none; grpc-js allows up to 5). */
  GRPC_RETRY_ATTEMPTS: z.coerce.number().int().min(1).max(5).default(DEFAULT_CALL_POLICY.retryAttempts),
  /** Deadline of a media upload to the inbox (createMedia, uploadMultipleMedia). */
  GRPC_UPLOAD_DEADLINE_MS: z.coerce.number().int().min(1).max(3_600_000).default(DEFAULT_CALL_POLICY.uploadDeadlineMs),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * How long an idle keep-alive HTTP connection stays open. Longer than the idle timeout of the proxies in front
   * (ingress-nginx and cloud load balancers keep upstream connections 60 s): if Node closed first (its default is
   * 5 s), a proxy could send a request on a connection being closed and answer 502.
   */
  HTTP_KEEP_ALIVE_MS: z.coerce.number().int().positive().default(65_000),
});

/** The base settings with the rules across them: what a deployable extends. */
export const serviceConfigSchema = baseConfigSchema.superRefine(checkKafkaSecurity);

export type BaseConfig = z.infer<typeof baseConfigSchema>;

export { ConfigError, loadConfig, type ConfigSource } from './load-config';
