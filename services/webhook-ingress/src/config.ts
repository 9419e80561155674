import { z } from 'zod';
import { baseConfigSchema, loadConfig } from '@svc/kit';

export const ingressConfigSchema = baseConfigSchema.extend({
  /** The contacts service (identifier lookups), host:port. */
  CONTACTS_GRPC_URL: z.string().default(''),
  /** The flows service (published flows bound to a connection), host:port. */
  FLOWS_GRPC_URL: z.string().default(''),
  /** bcrypt cost of stored Shared Secrets. */
  BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(11),
  /** bcrypt comparisons allowed at once per process; beyond it an unknown secret is refused without a comparison. */
  INGRESS_BCRYPT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** How often the retention job runs. */
  INGRESS_RETENTION_INTERVAL_MS: z.coerce.number().int().min(1000).default(3_600_000),
});
export type IngressConfig = z.infer<typeof ingressConfigSchema>;

export function ingressConfig(env: NodeJS.ProcessEnv = process.env): IngressConfig {
  return loadConfig(ingressConfigSchema, env);
}
