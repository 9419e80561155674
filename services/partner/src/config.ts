import { z } from 'zod';
import { serviceConfigSchema, loadConfig, type ConfigSource } from '@svc/kit';

export const partnerConfigSchema = serviceConfigSchema.extend({
  /** identity (the provider org of an event's client org), host:port. */
  IDENTITY_GRPC_URL: z.string().default(''),
  /** channels (the kind of an event's channel, for usage per channel kind), host:port. */
  CHANNELS_GRPC_URL: z.string().default(''),
});
export type PartnerConfig = z.infer<typeof partnerConfigSchema>;

export function partnerConfig(env: ConfigSource = process.env): PartnerConfig {
  return loadConfig(partnerConfigSchema, env);
}
