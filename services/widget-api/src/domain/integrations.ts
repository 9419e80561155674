import { LookupCache, NotFound } from '@svc/kit';
import { ChannelStatus, type WebIntegration } from '@svc/proto/channels/v1';
import type { Backends } from './backends';

/** A web integration with the org it belongs to, as a public key names it. */
export interface Integration {
  orgId: string;
  integration: WebIntegration;
}

/**
 * Public keys resolved through channels, reused for WIDGET_CONFIG_CACHE_MS (docs/decisions/0085): every config
 * fetch, handshake and visitor request names its integration, so they must not each cost a call. Channel events
 * evict an integration on every replica at once (by its id, the tag); the TTL bounds a missed event.
 */
export class Integrations {
  private readonly cache: LookupCache<Integration>;

  constructor(
    private readonly backends: Backends,
    ttlMs: number,
  ) {
    this.cache = new LookupCache({ ttlMs, keep: () => true, tagOf: (found) => found.integration.id });
  }

  /** The integration of a public key, whatever its status; NotFound for an unknown or deleted key. */
  async resolve(publicKey: string): Promise<Integration> {
    if (!publicKey || publicKey.length > 200) throw new NotFound('unknown public key');
    return this.cache.get(publicKey, async () => {
      const resolved = await this.backends.resolvePublicKey(publicKey);
      if (!resolved.integration) throw new NotFound('unknown public key');
      return { orgId: resolved.orgId, integration: resolved.integration };
    });
  }

  /** The integration of an active public key: a disabled one is answered as unknown (nothing to show or start). */
  async active(publicKey: string): Promise<Integration> {
    const found = await this.resolve(publicKey);
    if (found.integration.status !== ChannelStatus.ACTIVE) throw new NotFound('unknown public key');
    return found;
  }

  /**
   * A channel changed (updated, disabled, rotated, deleted): the next request asks channels again. Evicting the
   * public key as well drops a call in flight, so `stillActive` reads the change rather than joining an older read.
   */
  evict(channelId: string, publicKey = ''): void {
    this.cache.evictTag(channelId);
    if (publicKey) this.cache.evict(publicKey);
  }

  /** The org is deprovisioned: none of its integrations is reused (channels deletes them). */
  evictOrg(orgId: string): void {
    this.cache.evictWhere((_publicKey, found) => found.orgId === orgId);
  }

  /** Whether the integration of a public key is active now (false for a disabled, deleted or unknown key). */
  async stillActive(publicKey: string): Promise<boolean> {
    try {
      await this.active(publicKey);
      return true;
    } catch (error) {
      if (error instanceof NotFound) return false;
      throw error;
    }
  }
}
