import { z } from 'zod';
import { serviceConfigSchema, loadConfig, type ConfigSource } from '@svc/kit';
import { DEFAULT_STEP_RETRY_POLICY, type StepRetryPolicy } from './domain/step-retries';

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
  /**
   * Attempts at a step whose call failed UNAVAILABLE or DEADLINE_EXCEEDED, the first included, before the run fails
   * (docs/decisions/0070); 1: no retries.
   */
  FLOWS_STEP_RETRY_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(DEFAULT_STEP_RETRY_POLICY.attempts),
  /** The wait before a step's second attempt; doubles for each later one (with jitter). */
  FLOWS_STEP_RETRY_BACKOFF_MS: z.coerce.number().int().min(1).default(DEFAULT_STEP_RETRY_POLICY.backoffMs),
  /** The longest wait between two attempts at a step. */
  FLOWS_STEP_RETRY_MAX_BACKOFF_MS: z.coerce.number().int().min(1).default(DEFAULT_STEP_RETRY_POLICY.maxBackoffMs),
});
export type FlowsConfig = z.infer<typeof flowsConfigSchema>;

export function flowsConfig(env: ConfigSource = process.env): FlowsConfig {
  return loadConfig(flowsConfigSchema, env);
}

export function stepRetryPolicyOf(config: FlowsConfig): StepRetryPolicy {
  return {
    attempts: config.FLOWS_STEP_RETRY_ATTEMPTS,
    backoffMs: config.FLOWS_STEP_RETRY_BACKOFF_MS,
    maxBackoffMs: config.FLOWS_STEP_RETRY_MAX_BACKOFF_MS,
  };
}
