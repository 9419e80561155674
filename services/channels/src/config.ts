import { z } from 'zod';
import { SECRET_KEYS_FORMAT, loadConfig, secretKeysSetting, serviceConfigSchema, type ConfigSource } from '@svc/kit';

/** Every setting; `channelsConfigSchema` adds the rules a serving production process must meet. */
export const channelsSettingsSchema = serviceConfigSchema.extend({
  /**
   * Key-encryption keys of the web integrations' identity secrets (docs/decisions/0075, sealed as decision 0014
   * seals webhook secrets): `<keyId>:<base64 32 bytes>,…`; the first seals, all open. Required in production;
   * without it a development install keeps a generated key in a file.
   */
  CHANNELS_SECRETS_KEYS: secretKeysSetting,
  /**
   * Where a development install keeps its generated key when CHANNELS_SECRETS_KEYS is unset. Default: next to the
   * SQLite file of DB_URL, else `.data/channels-secrets.key`.
   */
  CHANNELS_SECRETS_KEY_FILE: z.string().optional(),
});

export const channelsConfigSchema = channelsSettingsSchema.refine(
  (config) => config.NODE_ENV !== 'production' || !!config.CHANNELS_SECRETS_KEYS,
  {
    path: ['CHANNELS_SECRETS_KEYS'],
    message: `required in production to encrypt identity secrets (${SECRET_KEYS_FORMAT})`,
  },
);
export type ChannelsConfig = z.infer<typeof channelsSettingsSchema>;

/** The service's settings; `migrating` (the `main.js migrate` Job) does not need the keys. */
export function channelsConfig(env: ConfigSource = process.env, { migrating = false } = {}): ChannelsConfig {
  return loadConfig(migrating ? channelsSettingsSchema : channelsConfigSchema, env);
}
