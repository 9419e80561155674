import { z } from 'zod';
import {
  serviceConfigSchema,
  loadConfig,
  secretKeysSetting,
  SECRET_KEYS_FORMAT as KEYS_FORMAT,
  type ConfigSource,
} from '@svc/kit';
import { DEFAULT_BCRYPT_QUEUE } from './auth/bcrypt-slots';

/** Every setting; `ingressConfigSchema` adds the rules a serving production process must meet. */
export const ingressSettingsSchema = serviceConfigSchema.extend({
  /** The contacts service (identifier lookups), host:port. */
  CONTACTS_GRPC_URL: z.string().default(''),
  /** The flows service (published flows bound to a connection), host:port. */
  FLOWS_GRPC_URL: z.string().default(''),
  /** The channels service (whether a connection's channel is the org's), host:port. */
  CHANNELS_GRPC_URL: z.string().default(''),
  /** bcrypt cost of stored Shared Secrets. */
  BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(11),
  /** bcrypt comparisons allowed at once per process (each ~50 ms of CPU): the most CPU a flood of secrets can burn. */
  INGRESS_BCRYPT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /**
   * Unknown Shared Secrets allowed to wait for a bcrypt slot; beyond it a request is answered 500 with Retry-After
   * (verification busy, docs/decisions/0011), never 401, since its secret was not compared.
   */
  INGRESS_BCRYPT_QUEUE: z.coerce.number().int().min(0).max(10_000).default(DEFAULT_BCRYPT_QUEUE),
  /** How often the retention job runs. */
  INGRESS_RETENTION_INTERVAL_MS: z.coerce.number().int().min(1000).default(3_600_000),
  /**
   * Key-encryption keys of the provider signing secrets (docs/decisions/0014): `<keyId>:<base64 32 bytes>,…`; the
   * first seals, all open. Required in production; without it a development install keeps a generated key in a file.
   */
  WEBHOOK_SECRETS_KEYS: secretKeysSetting,
  /**
   * Where a development install keeps its generated key when WEBHOOK_SECRETS_KEYS is unset. Default: next to the
   * SQLite file of DB_URL, else `.data/webhook-secrets.key`.
   */
  WEBHOOK_SECRETS_KEY_FILE: z.string().optional(),
  /** How long a positive contact lookup is reused (ms; 0 = ask contacts on every request). */
  INGRESS_CONTACT_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  /** How long a connection's non-empty list of published flows is reused (ms; 0 = ask flows on every request). */
  INGRESS_FLOWS_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  /** Most requests committed by one shared transaction (group commit of history rows and events). */
  INGRESS_COMMIT_BATCH: z.coerce.number().int().min(1).max(1000).default(200),
});

export const ingressConfigSchema = ingressSettingsSchema.refine(
  (config) => config.NODE_ENV !== 'production' || !!config.WEBHOOK_SECRETS_KEYS,
  {
    path: ['WEBHOOK_SECRETS_KEYS'],
    message: `required in production to encrypt provider signing secrets (${KEYS_FORMAT})`,
  },
);
export type IngressConfig = z.infer<typeof ingressSettingsSchema>;

/**
 * The service's settings from the environment. `migrating` (the `main.js migrate` Job) does not need the keys: the
 * schema migration runs without them and the serving pods seal what is left (docs/decisions/0014).
 */
export function ingressConfig(env: ConfigSource = process.env, { migrating = false } = {}): IngressConfig {
  return loadConfig(migrating ? ingressSettingsSchema : ingressConfigSchema, env);
}
