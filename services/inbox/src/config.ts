import type { z } from 'zod';
import { baseConfigSchema, loadConfig } from '@svc/kit';

export const inboxConfigSchema = baseConfigSchema;
export type InboxConfig = z.infer<typeof inboxConfigSchema>;

export function inboxConfig(env: NodeJS.ProcessEnv = process.env): InboxConfig {
  return loadConfig(inboxConfigSchema, env);
}
