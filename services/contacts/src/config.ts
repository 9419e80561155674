import { z } from 'zod';
import { serviceConfigSchema, loadConfig, type ConfigSource } from '@svc/kit';

export const contactsConfigSchema = serviceConfigSchema.extend({
  /** The inbox service, asked who owns a chat when a Chat ID is looked up (host:port). */
  INBOX_GRPC_URL: z.string().default(''),
  /** The channels service, asked whether a Channel user ID identity's channel is the org's (host:port). */
  CHANNELS_GRPC_URL: z.string().default(''),
  /** The other erasure participants, asked what erasing a contact would remove there (previewErase; host:port). */
  FLOWS_GRPC_URL: z.string().default(''),
  WEBHOOK_INGRESS_GRPC_URL: z.string().default(''),
  WIDGET_API_GRPC_URL: z.string().default(''),
  PARTNER_GRPC_URL: z.string().default(''),
});
export type ContactsConfig = z.infer<typeof contactsConfigSchema>;

export function contactsConfig(env: ConfigSource = process.env): ContactsConfig {
  return loadConfig(contactsConfigSchema, env);
}
