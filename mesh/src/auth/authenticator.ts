import { createHash } from 'node:crypto';
import { status, type ServiceError } from '@grpc/grpc-js';
import { LRUCache } from 'lru-cache';
import { Envelope } from '@svc/proto/events/v1';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import {
  ORG_ERASE_REQUESTED,
  ORG_ERASURE_TOPIC,
  grpcClient,
  systemPrincipal,
  unary,
  type EventBus,
  type GrpcCallPolicy,
  type Logger,
  type Principal,
  type PrincipalSigner,
  type Subscription,
} from '@svc/kit';

interface Cached {
  principal: Promise<Principal | undefined>;
  /** The key or session the credential resolved to, once it has. */
  owner?: string;
  /** The org the credential acts in (the client org with X-Svc-Org), once it resolved. */
  orgId?: string;
}

/** Cache keys by an id they resolved to; an id's set leaves with its last cache key. */
class CacheKeyIndex {
  private readonly byId = new Map<string, Set<string>>();

  get size(): number {
    return this.byId.size;
  }

  add(id: string, cacheKey: string): void {
    this.byId.set(id, (this.byId.get(id) ?? new Set()).add(cacheKey));
  }

  remove(id: string | undefined, cacheKey: string): void {
    if (!id) return;
    const cacheKeys = this.byId.get(id);
    cacheKeys?.delete(cacheKey);
    if (cacheKeys?.size === 0) this.byId.delete(id);
  }

  /** The cache keys of an id, forgotten. */
  take(id: string): string[] {
    const cacheKeys = [...(this.byId.get(id) ?? [])];
    this.byId.delete(id);
    return cacheKeys;
  }
}

export interface AuthenticatorCacheOptions {
  /** How long a resolved credential is trusted without asking identity again. */
  ttlMs?: number;
  /** Credentials kept at most; the least recently used goes first (random bearer tokens cannot grow memory). */
  maxEntries?: number;
  /** Deadline and retries of the Authenticate calls (kit `GrpcCallPolicy`). */
  callPolicy?: GrpcCallPolicy;
}

/**
 * Resolves bearer credentials to principals through identity.Authenticate, cached briefly (an LRU bounded in entries
 * and age) so the hot path is a map lookup. Revoked keys are evicted at once when this gateway revokes them, and from
 * the `apikey.revoked` events of `svc.identity.keys.v1` for revocations made through another replica (one consumer
 * group per gateway pod); a deprovisioned client org's credentials likewise, from `org.erase_requested`
 * (docs/decisions/0212-client-org-deprovisioning.md).
 */
export class Authenticator {
  private readonly cache: LRUCache<string, Cached>;
  /** Cached credentials by the key or session they resolved to; entries leave with their cache entry. */
  private readonly credentialsByKeyOrSession = new CacheKeyIndex();
  /** Cached credentials by the org they act in, to forget a deprovisioned client org's at once. */
  private readonly credentialsByOrg = new CacheKeyIndex();
  private readonly client: IdentityServiceClient;
  private subscription: Subscription | undefined;

  constructor(
    identityAddress: string,
    private readonly signer: PrincipalSigner,
    private readonly logger: Logger,
    { ttlMs = 30_000, maxEntries = 10_000, callPolicy }: AuthenticatorCacheOptions = {},
  ) {
    this.client = grpcClient(IdentityServiceClient, identityAddress, callPolicy);
    this.cache = new LRUCache<string, Cached>({
      max: maxEntries,
      ttl: Math.max(1, ttlMs),
      dispose: (cached, cacheKey) => this.unindex(cached, cacheKey),
    });
  }

  /** Credentials cached now, and the keys or sessions indexed for eviction (for tests and metrics). */
  get size(): { credentials: number; owners: number; orgs: number } {
    return {
      credentials: this.cache.size,
      owners: this.credentialsByKeyOrSession.size,
      orgs: this.credentialsByOrg.size,
    };
  }

  async start(bus: EventBus, topicPrefix: string, podId: string): Promise<void> {
    this.subscription = await bus.subscribe({
      groupId: `gateway-key-revocations-${podId}`,
      topics: [`${topicPrefix}svc.identity.keys.v1`, `${topicPrefix}${ORG_ERASURE_TOPIC}`],
      awaitAssignment: true,
      handle: async (record) => {
        const envelope = Envelope.decode(record.value);
        if (envelope.type === 'apikey.revoked' && envelope.apiKey) this.evict(envelope.apiKey.keyId);
        if (envelope.type === ORG_ERASE_REQUESTED && envelope.orgId) this.evictOrg(envelope.orgId);
      },
    });
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.client.close();
  }

  /** undefined when the credential is unknown, malformed or revoked; throws when identity cannot be reached. */
  authenticate(credential: string, actAsOrgId: string): Promise<Principal | undefined> {
    const cacheKey = createHash('sha256').update(`${credential}\n${actAsOrgId}`).digest('base64url');
    const hit = this.cache.get(cacheKey);
    if (hit) return hit.principal;
    const cached: Cached = { principal: Promise.resolve(undefined) };
    cached.principal = unary(
      this.client.authenticate.bind(this.client),
      { credential, actAsOrgId },
      this.signer.metadata(systemPrincipal(), 'identity'),
      5_000,
    ).then(
      (resolved) => {
        const owner = resolved.keyId || resolved.sessionId;
        if (owner && this.cache.peek(cacheKey) === cached) {
          cached.owner = owner;
          this.credentialsByKeyOrSession.add(owner, cacheKey);
          if (resolved.orgId) {
            cached.orgId = resolved.orgId;
            this.credentialsByOrg.add(resolved.orgId, cacheKey);
          }
        }
        return resolved;
      },
      (error: ServiceError) => {
        if (error.code === status.UNAUTHENTICATED) return undefined;
        if (error.code === status.PERMISSION_DENIED) throw Object.assign(new Error(error.details), { forbidden: true });
        if (this.cache.peek(cacheKey) === cached) this.cache.delete(cacheKey);
        throw error;
      },
    );
    this.cache.set(cacheKey, cached);
    return cached.principal;
  }

  /** Forgets every cached credential of a key or session. */
  evict(keyOrSessionId: string): void {
    for (const cacheKey of this.credentialsByKeyOrSession.take(keyOrSessionId)) this.cache.delete(cacheKey);
    this.logger.debug({ keyOrSessionId }, 'evicted credentials');
  }

  /** Forgets every cached credential acting in an org: its own keys and sessions, and X-Svc-Org naming it. */
  evictOrg(orgId: string): void {
    for (const cacheKey of this.credentialsByOrg.take(orgId)) this.cache.delete(cacheKey);
    this.logger.debug({ orgId }, 'evicted credentials of an org');
  }

  private unindex(cached: Cached, cacheKey: string): void {
    this.credentialsByKeyOrSession.remove(cached.owner, cacheKey);
    this.credentialsByOrg.remove(cached.orgId, cacheKey);
  }
}
