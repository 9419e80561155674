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
  private readonly channelKinds: LookupCache<{ kind: string }>;

  constructor(
    private readonly identity: Peer<IdentityServiceClient>,
    private readonly channels: Peer<ChannelsServiceClient>,
    private readonly signer: () => PrincipalSigner,
    ttlMs: number,
  ) {
    this.providers = new LookupCache({ ttlMs, keep: () => true });
    // A channel channels does not know (yet) is asked again next time.
    this.channelKinds = new LookupCache({ ttlMs, keep: (found) => found.kind !== '' });
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

  /**
   * The svc.channels.v1.ChannelType name of one of the org's channels, deleted ones included (a message of a channel
   * disconnected since still counts under its kind), or '' when channels does not know it in that org.
   */
  async channelKindOf(orgId: string, channelId: string): Promise<string> {
    const found = await this.channelKinds.get(`${orgId}/${channelId}`, async () => {
      const client = this.channels.get();
      const answer = await call(() =>
        unary(
          client.findChannels.bind(client),
          { channelIds: [channelId], includeDeleted: true },
          this.signer().metadata(systemPrincipal(orgId), 'channels'),
        ),
      );
      return { kind: answer.channels.find((channel) => channel.id === channelId)?.type ?? '' };
    });
    return found.kind;
  }
}

async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw domainErrorOf(error as ServiceError);
  }
}
