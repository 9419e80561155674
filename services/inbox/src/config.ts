import { z } from 'zod';
import { serviceConfigSchema, loadConfig, type ConfigSource } from '@svc/kit';

export const inboxConfigSchema = serviceConfigSchema.extend({
  /** identity (who the org's members are, to check an assignee), host:port. */
  IDENTITY_GRPC_URL: z.string().default(''),
  /** contacts (the contact's display fields for the inbox's copy; erasure requests), host:port. */
  CONTACTS_GRPC_URL: z.string().default(''),
  /** Blob storage of the media library: a local directory (a mounted volume in Kubernetes). */
  MEDIA_DIR: z.string().min(1).default('.data/media'),
  /** Largest accepted file, in bytes. */
  MEDIA_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(16 * 1024 * 1024),
  /** Most files per uploadMultipleMedia call. */
  MEDIA_MAX_FILES: z.coerce.number().int().positive().max(50).default(10),
  /** A signed media link lives between this and twice this. */
  MEDIA_URL_TTL_SECONDS: z.coerce.number().int().min(60).default(900),
  /** Base URL of the public edge for signed links (https://inbox.example.com); empty: relative links. */
  MEDIA_PUBLIC_URL: z.union([z.url(), z.literal('')]).default(''),
  /** Key of the link signatures (at least 32 characters; the embedded stack generates one into its data dir). */
  MEDIA_URL_SECRET: z.string().min(32),
});
export type InboxConfig = z.infer<typeof inboxConfigSchema>;

export function inboxConfig(env: ConfigSource = process.env): InboxConfig {
  return loadConfig(inboxConfigSchema, env);
}
