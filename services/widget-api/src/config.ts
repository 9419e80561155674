import { z } from 'zod';
import { serviceConfigSchema, loadConfig, type ConfigSource } from '@svc/kit';

const GOOGLE_JWKS_URL = 'https://www.googleapis.com/oauth2/v3/certs';

export const widgetConfigSchema = serviceConfigSchema.extend({
  /** channels (public keys, visitor proofs), contacts (the visitor's contact), inbox (chats, messages), host:port. */
  CHANNELS_GRPC_URL: z.string().default(''),
  CONTACTS_GRPC_URL: z.string().default(''),
  INBOX_GRPC_URL: z.string().default(''),
  /** content (the published help articles and news a public key's org shows visitors), host:port. */
  CONTENT_GRPC_URL: z.string().default(''),
  /** Where Google's signing keys of ID tokens are published (tests serve their own). */
  WIDGET_GOOGLE_JWKS_URL: z.url().default(GOOGLE_JWKS_URL),
  /** Lifetime of a visitor session token (the bearer of every visitor route), in seconds. */
  WIDGET_SESSION_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(900),
  /** Lifetime of a refresh token (rotated on every use), in seconds: how long a visitor stays known to a browser. */
  WIDGET_REFRESH_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(30 * 86_400),
  /**
   * How long a resolved integration is reused (ms). Channel events evict it at once on every replica; this bounds how
   * stale it can be if an event is missed.
   */
  WIDGET_CONFIG_CACHE_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** Anonymous handshakes (new visitors) per client address and public key: bucket size and its refill window. */
  WIDGET_ANONYMOUS_BURST: z.coerce.number().int().min(1).max(100_000).default(20),
  WIDGET_ANONYMOUS_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600),
  /** Proxies in front whose X-Forwarded-For entries are believed (kit client-address.ts; the chart sets 1). */
  WIDGET_TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /** The widget's own origin (where its iframe document is served from), always allowed by CORS. Empty: none. */
  WIDGET_ORIGIN: z.union([z.url(), z.literal('')]).default(''),
  /** Largest attachment, in bytes: the inbox's MEDIA_MAX_BYTES (same variable, same default). */
  MEDIA_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(16 * 1024 * 1024),
  /** SSE: comment written to every open stream this often (one timer for all streams), and the client's `retry:`. */
  WIDGET_SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  WIDGET_SSE_RETRY_MS: z.coerce.number().int().min(100).max(120_000).default(3_000),
  /** An agent's typing indicator turns itself off after this long without a new typing event. */
  WIDGET_TYPING_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
});
export type WidgetConfig = z.infer<typeof widgetConfigSchema>;

export function widgetConfig(env: ConfigSource = process.env): WidgetConfig {
  return loadConfig(widgetConfigSchema, env);
}
