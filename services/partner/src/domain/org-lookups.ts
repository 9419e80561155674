import type { ServiceError } from '@grpc/grpc-js';
import { LookupCache, domainErrorOf, systemPrincipal, unary, type Peer, type PrincipalSigner } from '@svc/kit';
import type { ChannelsServiceClient } from '@svc/proto/channels/v1';
import type { IdentityServiceClient } from '@svc/proto/identity/v1';

/**
 * What the fan-out and the usage rollup need to know about an event's org and channel, asked as SYSTEM of the event's
 * org and reused: an org's parent and a channel's kind never change, so answers are kept for `ttlMs` (bounded entries).
 * Both are shared by every consumer of the service (one cache each).
 */
export class OrgLookups {
  private readonly providers: LookupCache<{ providerOrgId: string }>;

  constructor(
    private readonly identity: Peer<IdentityServiceClient>,
    protected readonly channels: Peer<ChannelsServiceClient>,
    private readonly signer: () => PrincipalSigner,
    ttlMs: number,
  ) {
    this.providers = new LookupCache({ ttlMs, keep: () => true });
  }

  /** The TECH_PROVIDER org managing `orgId`, or '' when the org is nobody's client org. */
  async providerOf(orgId: string): Promise<string> {
    const found = await this.providers.get(orgId, async () => {
      const client = this.identity.get();
      const org = await call(() =>
        unary(client.getOrg.bind(client), {}, this.signer().metadata(systemPrincipal(orgId), 'identity')),
      );
      return { providerOrgId: org.parentOrgId ?? '' };
    });
    return found.providerOrgId;
  }
  // The usage rollup adds channelKindOf(orgId, channelId) here (channels' FindChannels answering each channel's type).
}

async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw domainErrorOf(error as ServiceError);
  }
}
