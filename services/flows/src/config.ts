import { z } from 'zod';
import { serviceConfigSchema, loadConfig, type ConfigSource } from '@svc/kit';

export const flowsConfigSchema = serviceConfigSchema.extend({
  /** identity (whether an assign step's assignee is a member of the org), host:port. */
  IDENTITY_GRPC_URL: z.string().default(''),
  /** The inbox (messages, notes, closing chats; whether a label or a chat is the org's), host:port. */
  INBOX_GRPC_URL: z.string().default(''),
  /** The contacts service (contact attributes), host:port. */
  CONTACTS_GRPC_URL: z.string().default(''),
  /** webhook-ingress (whether a Webhook Received trigger's connection is the org's), host:port. */
  WEBHOOK_INGRESS_GRPC_URL: z.string().default(''),
  /** How often the runner looks for due runs (waits that ended, runs a crashed replica left behind). */
  FLOWS_RUNNER_INTERVAL_MS: z.coerce.number().int().min(50).default(1000),
  /** How long a claimed run is leased: a run whose replica died is resumed by another after this. */
  FLOWS_RUN_LEASE_MS: z.coerce.number().int().min(1000).default(60_000),
});
export type FlowsConfig = z.infer<typeof flowsConfigSchema>;

export function flowsConfig(env: ConfigSource = process.env): FlowsConfig {
  return loadConfig(flowsConfigSchema, env);
}
