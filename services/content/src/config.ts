import { z } from 'zod';
import { serviceConfigSchema, loadConfig, type ConfigSource } from '@svc/kit';

export const contentConfigSchema = serviceConfigSchema.extend({
  /** identity (which org a public help-center slug names), host:port. */
  IDENTITY_GRPC_URL: z.string().default(''),
});
export type ContentConfig = z.infer<typeof contentConfigSchema>;

export function contentConfig(env: ConfigSource = process.env): ContentConfig {
  return loadConfig(contentConfigSchema, env);
}
