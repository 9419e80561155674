import { z } from 'zod';
import { serviceConfigSchema, loadConfig, type ConfigSource } from '@svc/kit';
import { DEFAULT_LOGIN_LIMITS } from './domain/login-throttle';

export const identityConfigSchema = serviceConfigSchema.extend({
  /** bcrypt cost for member passwords. */
  BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(11),
  /** Failed logins per email, and per client address, within LOGIN_FAILURE_WINDOW_SECONDS (docs/decisions/0049). */
  LOGIN_FAILURES_PER_EMAIL: z.coerce.number().int().positive().default(DEFAULT_LOGIN_LIMITS.failuresPerEmail),
  LOGIN_FAILURES_PER_ADDRESS: z.coerce.number().int().positive().default(DEFAULT_LOGIN_LIMITS.failuresPerAddress),
  LOGIN_FAILURE_WINDOW_SECONDS: z.coerce.number().int().positive().default(DEFAULT_LOGIN_LIMITS.windowSeconds),
});

export type IdentityConfig = z.infer<typeof identityConfigSchema>;

export function identityConfig(env: ConfigSource = process.env): IdentityConfig {
  return loadConfig(identityConfigSchema, env);
}
