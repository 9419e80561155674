import { z } from 'zod';
import { serviceConfigSchema, loadConfig, type ConfigSource } from '@svc/kit';

export const contentConfigSchema = serviceConfigSchema.extend({
  /** identity (which org a public help-center slug names), host:port. */
  IDENTITY_GRPC_URL: z.string().default(''),
  /**
   * How often each replica tries the news scheduler's lease and, holding it, publishes the scheduled posts that are
   * due (docs/decisions/0191); the holder also wakes at a post's time when that comes sooner.
   */
  CONTENT_SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(20).default(5000),
  /**
   * How long the scheduler's lease lasts unrenewed: after a holder dies, due posts wait at most this long. Longer than
   * the interval (the holder renews it on each pass); shorter only costs exclusivity, never a double publication.
   */
  CONTENT_SCHEDULER_LEASE_MS: z.coerce.number().int().min(100).default(30_000),
  /** Where the public help pages are reached (`https://example.com`), for their absolute links; empty: the request's. */
  CONTENT_PUBLIC_URL: z.union([z.url(), z.literal('')]).default(''),
  /** How long the org a help-center slug names is reused (ms); slugs never change. */
  CONTENT_ORG_SLUG_CACHE_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
});
export type ContentConfig = z.infer<typeof contentConfigSchema>;

export function contentConfig(env: ConfigSource = process.env): ContentConfig {
  return loadConfig(contentConfigSchema, env);
}
