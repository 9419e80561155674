import {
  callPolicyOf,
  ORG_ERASURE_TOPIC,
  OrgErasureParticipant,
  Peer,
  ServiceApp,
  type ServiceAppDeps,
  type Subscription,
} from '@svc/kit';
import { ChannelsServiceClient } from '@svc/proto/channels/v1';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { PartnerUsageServiceService } from '@svc/proto/partner/v1/partner_usage';
import type { PartnerConfig } from './config';
import { partnerData } from './data';
import { partnerOrgPart } from './domain/org-erasure';
import { OrgLookups } from './domain/org-lookups';
import { UsageConsumer } from './domain/usage/consumer';
import { UsageRecorder } from './domain/usage/recorder';
import { UsageReports } from './domain/usage/reports';
import { PARTNER_USAGE_GRPC_SERVICE, partnerUsageService } from './grpc/usage-handlers';

/** How long an org's provider and a channel's kind are reused (neither changes). */
const LOOKUP_TTL_MS = 10 * 60_000;

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
  /** Shared by every consumer of the service: one cache of providers and channel kinds. */
  readonly orgLookups: OrgLookups;
  private usageConsumer: UsageConsumer | undefined;
  private usageSubscription: Subscription | undefined;
  /** Deletes a deprovisioned client org's deliveries (its usage history stays): domain/org-erasure.ts. */
  private orgErasure: OrgErasureParticipant | undefined;

  constructor(config: PartnerConfig, deps: PartnerDeps = {}) {
    super(
      {
        name: 'partner',
        grpcServices: [PARTNER_USAGE_GRPC_SERVICE],
        data: partnerData,
        publishes: [ORG_ERASURE_TOPIC],
      },
      config,
      deps,
    );
    const policy = callPolicyOf(config);
    this.identity = new Peer(IdentityServiceClient, deps.identityAddress ?? (() => config.IDENTITY_GRPC_URL), policy);
    this.channels = new Peer(ChannelsServiceClient, deps.channelsAddress ?? (() => config.CHANNELS_GRPC_URL), policy);
    this.orgLookups = new OrgLookups(this.identity, this.channels, () => this.signer, LOOKUP_TTL_MS);
  }

  protected register(): void {
    this.orgErasure = new OrgErasureParticipant(this, partnerOrgPart());
    // Each area adds its gRPC service here (webhooks, usage) and its consumers in startWorkers.
    this.registerUsage();
  }

  private registerUsage(): void {
    const reports = new UsageReports(this.dataSource, (orgId) => this.orgLookups.providerOf(orgId));
    this.grpc.add(
      PartnerUsageServiceService,
      partnerUsageService(reports, { verifier: this.verifier, logger: this.logger }),
      PARTNER_USAGE_GRPC_SERVICE,
    );
    this.usageConsumer = new UsageConsumer(new UsageRecorder(this.dataSource), this.orgLookups, this.logger);
  }

  /** Counts the inbox's events into the usage rollup; tests stop and restart it (nothing is lost or doubled). */
  async startUsageConsumer(): Promise<void> {
    if (this.usageSubscription || !this.usageConsumer) return;
    this.usageSubscription = await this.usageConsumer.subscribe(this.bus, this.config.KAFKA_TOPIC_PREFIX);
  }

  async stopUsageConsumer(): Promise<void> {
    const subscription = this.usageSubscription;
    this.usageSubscription = undefined;
    await subscription?.stop();
  }

  protected override async startWorkers(): Promise<void> {
    await this.startUsageConsumer();
    await this.orgErasure?.start();
  }

  protected override async stopWorkers(): Promise<void> {
    await this.stopUsageConsumer();
    await this.orgErasure?.stop();
    this.identity.close();
    this.channels.close();
  }
}
