import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { loadConfig } from '@svc/kit';

export const stackConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().default('0.0.0.0'),
  /** Idle keep-alive connections stay open this long (kit baseConfigSchema's HTTP_KEEP_ALIVE_MS says why). */
  HTTP_KEEP_ALIVE_MS: z.coerce.number().int().positive().default(65_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Where the embedded default keeps its SQLite files, its media link key and demo.env. */
  SVC_DATA_DIR: z.string().default('.data'),
  /** Each service's database; `{service}` is replaced by the service name. Default: a SQLite file per service. */
  SVC_DB_URL_TEMPLATE: z.string().optional(),
  /** Kafka for every co-located service; unset, the stack chooses the in-process bus (its log in SVC_DATA_DIR). */
  KAFKA_BROKERS: z.string().default(''),
  KAFKA_TOPIC_PREFIX: z.string().default(''),
  /**
   * The keys principal tokens are signed with (kit `TrustKeys` as JSON: `{"jwks": "…", "signing": {issuer: JWK}}`);
   * unset: generated at each start, in memory only. Tests that call the stack's services from another process set it.
   */
  SVC_TRUST_KEYS: z
    .string()
    .transform((text) => JSON.parse(text) as unknown)
    .pipe(z.object({ jwks: z.string().min(1), signing: z.record(z.string(), z.looseObject({ kid: z.string() })) }))
    .optional(),
  /** The inbox's media link key; unset: generated once into SVC_DATA_DIR, so links survive restarts. */
  MEDIA_URL_SECRET: z.string().min(32).optional(),
  /** Seed the demo org on first start and print its credentials. */
  SVC_SEED_DEMO: z.stringbool().default(true),
  /** GraphiQL at /graphql for browsers (every operation still needs credentials); on for the embedded stack. */
  GATEWAY_EXPLORER: z.stringbool().default(true),
  /** The widget's assembled CDN directory served at /widget/ (`npm run build` writes it; decision 0110). */
  SVC_WIDGET_DIR: z.string().default(path.resolve(__dirname, '../../../../widget-stencil/dist/widget')),
  /** The URL printed for the demo and written to demo.env. */
  SVC_PUBLIC_URL: z.string().optional(),
  BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(11),
  /** Keys sealing provider signing secrets (docs/decisions/0014); unset: one generated into SVC_DATA_DIR. */
  WEBHOOK_SECRETS_KEYS: z.string().optional(),
  /** Keys sealing web integrations' identity secrets (docs/decisions/0075); unset: one generated into SVC_DATA_DIR. */
  CHANNELS_SECRETS_KEYS: z.string().optional(),
  /**
   * Benchmarks only (`tests/bench/stack-process.ts`): `ipc` lets the parent process pause and resume flows' webhook
   * consumer over its IPC channel (src/bench-control.ts). Never set in production.
   */
  SVC_BENCH_CONTROL: z.enum(['off', 'ipc']).default('off'),
});

export type StackConfig = z.infer<typeof stackConfigSchema>;

export function stackConfig(env: NodeJS.ProcessEnv = process.env): StackConfig {
  return loadConfig(stackConfigSchema, env);
}

/** The media link key of an embedded install: generated once and kept in the data dir, so restarts agree. */
export function embeddedMediaUrlSecret(dataDir: string): string {
  const file = path.join(dataDir, 'media-url-secret');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  fs.writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
