import { z } from 'zod';
import { baseConfigSchema, loadConfig } from '@svc/kit';

export const identityConfigSchema = baseConfigSchema.extend({
  /** bcrypt cost for member passwords. */
  BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(11),
});

export type IdentityConfig = z.infer<typeof identityConfigSchema>;

export function identityConfig(env: NodeJS.ProcessEnv = process.env): IdentityConfig {
  return loadConfig(identityConfigSchema, env);
}
