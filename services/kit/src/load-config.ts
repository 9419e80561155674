import type { z } from 'zod';

/*
 * Loading a config, apart from the schemas in config.ts: tracing/register loads this before grpc-js and the generated
 * clients are first required (the instrumentations patch them as they load), and config.ts requires both.
 */

/** What a config is read from: the environment, or the embedded stack's wiring (which may hold IN_PROCESS_BUS). */
export type ConfigSource = Readonly<Record<string, unknown>>;

export class ConfigError extends Error {}

/** Validates env against a schema at start-up and names every offending variable. */
export function loadConfig<S extends z.ZodType>(schema: S, env: ConfigSource = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`);
  throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
}
