import {
  callPolicyOf,
  ORG_ERASURE_TOPIC,
  OrgErasureParticipant,
  Peer,
  ServiceApp,
  type ServiceAppDeps,
} from '@svc/kit';
import { ChannelsServiceClient } from '@svc/proto/channels/v1';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import type { PartnerConfig } from './config';
import { partnerData } from './data';
import { partnerOrgPart } from './domain/org-erasure';

export interface PartnerDeps extends ServiceAppDeps {
  /** Where identity listens, read at first use (the embedded stack knows it after start). */
  identityAddress?: () => string;
  /** Where channels listens, read at first use. */
  channelsAddress?: () => string;
}

/**
 * Partner administration for TECH_PROVIDER orgs (services/partner/README.md): the fan-out webhook (registration,
 * Standard Webhooks deliveries with retries, the delivery log, replay) and the usage rollup of client orgs.
 */
export class PartnerApp extends ServiceApp<PartnerConfig> {
  protected readonly identity: Peer<IdentityServiceClient>;
  protected readonly channels: Peer<ChannelsServiceClient>;
  /** Deletes a deprovisioned client org's deliveries (its usage history stays): domain/org-erasure.ts. */
  private orgErasure: OrgErasureParticipant | undefined;

  constructor(config: PartnerConfig, deps: PartnerDeps = {}) {
    super({ name: 'partner', grpcServices: [], data: partnerData, publishes: [ORG_ERASURE_TOPIC] }, config, deps);
    const policy = callPolicyOf(config);
    this.identity = new Peer(IdentityServiceClient, deps.identityAddress ?? (() => config.IDENTITY_GRPC_URL), policy);
    this.channels = new Peer(ChannelsServiceClient, deps.channelsAddress ?? (() => config.CHANNELS_GRPC_URL), policy);
  }

  protected register(): void {
    this.orgErasure = new OrgErasureParticipant(this, partnerOrgPart());
    // Each area adds its gRPC service here (webhooks, usage) and its consumers in startWorkers.
  }

  protected override async startWorkers(): Promise<void> {
    await this.orgErasure?.start();
  }

  protected override async stopWorkers(): Promise<void> {
    await this.orgErasure?.stop();
    this.identity.close();
    this.channels.close();
  }
}
