import { z } from 'zod';
import { serviceConfigSchema, loadConfig, secretKeysSetting, SECRET_KEYS_FORMAT, type ConfigSource } from '@svc/kit';

const HOUR_MS = 3_600_000;

const partnerSettingsShape = serviceConfigSchema.extend({
  /** identity (the provider org of an event's client org), host:port. */
  IDENTITY_GRPC_URL: z.string().default(''),
  /** channels (the kind of an event's channel, for usage per channel kind), host:port. */
  CHANNELS_GRPC_URL: z.string().default(''),
  /**
   * Key-encryption keys of the partner webhooks' signing secrets (docs/partner-webhooks.md): `<keyId>:<base64 32
   * bytes>,…`; the first seals, all open. Required in production; without it a development install keeps a generated
   * key in a file.
   */
  PARTNER_SECRETS_KEYS: secretKeysSetting,
  /**
   * Where a development install keeps its generated key when PARTNER_SECRETS_KEYS is unset. Default: next to the
   * SQLite file of DB_URL, else `.data/partner-secrets.key`.
   */
  PARTNER_SECRETS_KEY_FILE: z.string().optional(),
  /**
   * How long the previous secret keeps signing next to the new one after rotatePartnerWebhookSecret (ms; 0: the old
   * secret stops at once). A day lets a provider roll the new secret out to every receiver (several deploys, a
   * weekend's change freeze is the exception) while a leaked secret stops working within a day (docs/decisions/0231).
   */
  PARTNER_SECRET_ROTATION_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 24 * HOUR_MS)
    .default(24 * HOUR_MS),
  /**
   * Tests and local development only: webhook URLs may use http and name loopback, private or link-local addresses
   * (the SSRF guard is off). Refused when NODE_ENV=production.
   */
  PARTNER_WEBHOOK_INSECURE_URLS: z.stringbool().default(false),
  /** One delivery attempt's limit, the answer's first bytes included (ms; Standard Webhooks: 15–30 s). */
  PARTNER_DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(1).max(30_000).default(15_000),
  /** Delivery attempts in flight at once per replica. */
  PARTNER_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
  /** How often a replica looks for due deliveries besides being woken by new ones (ms). */
  PARTNER_DELIVERY_POLL_MS: z.coerce.number().int().min(10).default(1_000),
  /**
   * How long the usage rollup keeps an event's processed mark (ms): longer than any redelivery can come, so longer
   * than the topics' retention (Kafka's and the embedded bus's 7 days; docs/decisions/0270).
   */
  PARTNER_USAGE_DEDUPE_RETENTION_MS: z.coerce
    .number()
    .int()
    .min(8 * 24 * HOUR_MS)
    .default(30 * 24 * HOUR_MS),
});

/** Every setting, with the rules that hold for every process; `partnerConfigSchema` adds the serving ones. */
export const partnerSettingsSchema = partnerSettingsShape.refine(
  (config) => config.NODE_ENV !== 'production' || !config.PARTNER_WEBHOOK_INSECURE_URLS,
  {
    path: ['PARTNER_WEBHOOK_INSECURE_URLS'],
    message: 'must not be true in production: it lets webhooks reach loopback, private and link-local addresses',
  },
);

export const partnerConfigSchema = partnerSettingsSchema.refine(
  (config) => config.NODE_ENV !== 'production' || !!config.PARTNER_SECRETS_KEYS,
  {
    path: ['PARTNER_SECRETS_KEYS'],
    message: `required in production to encrypt partner webhook signing secrets (${SECRET_KEYS_FORMAT})`,
  },
);
export type PartnerConfig = z.infer<typeof partnerSettingsSchema>;

/**
 * The service's settings from the environment. `migrating` (the `main.js migrate` Job) does not need the keys: the
 * schema migration neither seals nor opens a secret.
 */
export function partnerConfig(env: ConfigSource = process.env, { migrating = false } = {}): PartnerConfig {
  return loadConfig(migrating ? partnerSettingsSchema : partnerConfigSchema, env);
}
