import { createHash } from 'node:crypto';
import { status, type ServiceError } from '@grpc/grpc-js';
import { Envelope } from '@svc/proto/events/v1';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import {
  grpcClient,
  systemPrincipal,
  unary,
  type EventBus,
  type Logger,
  type Principal,
  type PrincipalCodec,
  type Subscription,
} from '@svc/kit';

interface Cached {
  principal: Promise<Principal | undefined>;
  expiresAt: number;
}

/**
 * Resolves bearer credentials to principals through identity.Authenticate, cached briefly so the hot path is a map
 * lookup. Revoked keys are evicted at once when this gateway revokes them, and from the `apikey.revoked` events of
 * `svc.identity.keys.v1` for revocations made through another replica (one consumer group per gateway pod).
 */
export class Authenticator {
  private readonly cache = new Map<string, Cached>();
  private readonly credentialsByKeyOrSession = new Map<string, Set<string>>();
  private readonly client: IdentityServiceClient;
  private subscription: Subscription | undefined;

  constructor(
    identityAddress: string,
    private readonly codec: PrincipalCodec,
    private readonly logger: Logger,
    private readonly ttlMs = 30_000,
  ) {
    this.client = grpcClient(IdentityServiceClient, identityAddress);
  }

  async start(bus: EventBus, topicPrefix: string, podId: string): Promise<void> {
    this.subscription = await bus.subscribe({
      groupId: `gateway-key-revocations-${podId}`,
      topics: [`${topicPrefix}svc.identity.keys.v1`],
      awaitAssignment: true,
      handle: async (record) => {
        const envelope = Envelope.decode(record.value);
        if (envelope.type === 'apikey.revoked' && envelope.apiKey) this.evict(envelope.apiKey.keyId);
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
    if (hit && hit.expiresAt > Date.now()) return hit.principal;
    const principal = unary(
      this.client.authenticate.bind(this.client),
      { credential, actAsOrgId },
      this.codec.metadata(systemPrincipal()),
      5_000,
    ).then(
      (resolved) => {
        const owner = resolved.keyId || resolved.sessionId;
        if (owner)
          this.credentialsByKeyOrSession.set(
            owner,
            (this.credentialsByKeyOrSession.get(owner) ?? new Set()).add(cacheKey),
          );
        return resolved;
      },
      (error: ServiceError) => {
        if (error.code === status.UNAUTHENTICATED) return undefined;
        if (error.code === status.PERMISSION_DENIED) throw Object.assign(new Error(error.details), { forbidden: true });
        this.cache.delete(cacheKey);
        throw error;
      },
    );
    this.cache.set(cacheKey, { principal, expiresAt: Date.now() + this.ttlMs });
    if (this.cache.size > 50_000) this.cache.delete(this.cache.keys().next().value as string);
    return principal;
  }

  /** Forgets every cached credential of a key or session. */
  evict(keyOrSessionId: string): void {
    for (const cacheKey of this.credentialsByKeyOrSession.get(keyOrSessionId) ?? []) this.cache.delete(cacheKey);
    this.credentialsByKeyOrSession.delete(keyOrSessionId);
    this.logger.debug({ keyOrSessionId }, 'evicted credentials');
  }
}
