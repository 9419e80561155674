import {
  callPolicyOf,
  ERASURE_PARTICIPANT_GRPC_SERVICE,
  ERASURE_TOPIC,
  ErasureParticipant,
  now,
  ORG_ERASURE_TOPIC,
  OrgErasureParticipant,
  Peer,
  ServiceApp,
  type LoadedKeyring,
  type ServiceAppDeps,
  type PassLoop,
  type Subscription,
  stopTogether,
} from '@svc/kit';
import { ChannelsServiceClient } from '@svc/proto/channels/v1';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { PartnerUsageServiceService } from '@svc/proto/partner/v1/partner_usage';
import { PartnerWebhookServiceService } from '@svc/proto/partner/v1/partner_webhooks';
import type { PartnerConfig } from './config';
import { partnerData } from './data';
import { DeliveryEngine } from './domain/delivery/engine';
import { partnerContactErasure } from './domain/erasure';
import { subscribeFanout } from './domain/fanout/consumer';
import { Fanout } from './domain/fanout/fanout';
import { partnerOrgPart } from './domain/org-erasure';
import { OrgLookups } from './domain/org-lookups';
import { UsageConsumer } from './domain/usage/consumer';
import { UsageRecorder } from './domain/usage/recorder';
import { UsageReports } from './domain/usage/reports';
import { usageMarksRetention } from './domain/usage/retention';
import { WebhookSecrets, loadPartnerKeyring } from './domain/webhook-secrets';
import { PartnerDeliveries } from './domain/webhooks/deliveries';
import { PartnerWebhooks } from './domain/webhooks/webhooks';
import { PARTNER_USAGE_GRPC_SERVICE, partnerUsageService } from './grpc/usage-handlers';
import { PARTNER_WEBHOOK_GRPC_SERVICE, partnerWebhookService } from './grpc/webhooks-handlers';

export interface PartnerDeps extends ServiceAppDeps {
  /** Where identity listens, read at first use (the embedded stack knows it after start). */
  identityAddress?: () => string;
  /** Where channels listens, read at first use. */
  channelsAddress?: () => string;
  /** The time the delivery engine reads as now (tests move it). */
  deliveryClock?: () => Date;
}

/** How long an org's provider and a channel's kind are reused: neither changes, so only memory bounds them. */
const LOOKUP_TTL_MS = 10 * 60_000;

/**
 * Partner administration for TECH_PROVIDER orgs (services/partner/README.md): the fan-out webhook (registration,
 * Standard Webhooks deliveries with retries, the delivery log, replay) and the usage rollup of client orgs.
 */
export class PartnerApp extends ServiceApp<PartnerConfig> {
  protected readonly identity: Peer<IdentityServiceClient>;
  protected readonly channels: Peer<ChannelsServiceClient>;
  private keys: LoadedKeyring | undefined;
  /** Sends the deliveries (every replica runs one); set when serving. */
  delivery: DeliveryEngine | undefined;
  private erasure: ErasureParticipant | undefined;
  /** Deletes a deprovisioned client org's deliveries (its usage history stays): domain/org-erasure.ts. */
  private orgErasure: OrgErasureParticipant | undefined;
  private fanout: Subscription | undefined;
  private readonly deliveryClock: () => Date;
  /** Shared by every consumer of the service: one cache of providers and channel kinds. */
  readonly orgLookups: OrgLookups;
  private usageConsumer: UsageConsumer | undefined;
  private usageSubscription: Subscription | undefined;
  /** Prunes the usage rollup's processed-event marks (decision 0270). */
  private usageRetention: PassLoop | undefined;

  constructor(config: PartnerConfig, deps: PartnerDeps = {}) {
    super(
      {
        name: 'partner',
        grpcServices: [PARTNER_WEBHOOK_GRPC_SERVICE, PARTNER_USAGE_GRPC_SERVICE, ERASURE_PARTICIPANT_GRPC_SERVICE],
        data: partnerData,
        publishes: [ERASURE_TOPIC, ORG_ERASURE_TOPIC],
      },
      config,
      deps,
    );
    this.deliveryClock = deps.deliveryClock ?? now;
    const policy = callPolicyOf(config);
    this.identity = new Peer(IdentityServiceClient, deps.identityAddress ?? (() => config.IDENTITY_GRPC_URL), policy);
    this.channels = new Peer(ChannelsServiceClient, deps.channelsAddress ?? (() => config.CHANNELS_GRPC_URL), policy);
    this.orgLookups = new OrgLookups(this.identity, this.channels, () => this.signer, LOOKUP_TTL_MS);
  }

  protected register(): void {
    this.orgErasure = new OrgErasureParticipant(this, partnerOrgPart());
    const deps = { verifier: this.verifier, logger: this.logger };
    // Loaded when serving, not at construction: the migration Job runs without keys.
    this.keys = loadPartnerKeyring(this.config);
    const secrets = new WebhookSecrets(this.keys.keyring, this.config.PARTNER_SECRET_ROTATION_GRACE_MS);
    const policy = { allowInsecure: this.config.PARTNER_WEBHOOK_INSECURE_URLS };
    const engine = new DeliveryEngine(this.dataSource, secrets, this.logger.child({ component: 'delivery' }), {
      policy,
      timeoutMs: this.config.PARTNER_DELIVERY_TIMEOUT_MS,
      concurrency: this.config.PARTNER_DELIVERY_CONCURRENCY,
      pollMs: this.config.PARTNER_DELIVERY_POLL_MS,
      clock: this.deliveryClock,
    });
    this.delivery = engine;
    this.erasure = new ErasureParticipant(this, partnerContactErasure(this.dataSource));
    this.grpc.add(
      PartnerWebhookServiceService,
      partnerWebhookService(
        {
          webhooks: new PartnerWebhooks(this.dataSource, secrets, policy),
          deliveries: new PartnerDeliveries(this.dataSource, () => engine),
        },
        deps,
      ),
      PARTNER_WEBHOOK_GRPC_SERVICE,
    );
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
    this.usageRetention = usageMarksRetention(
      this.dataSource,
      this.config.PARTNER_USAGE_DEDUPE_RETENTION_MS,
      this.logger,
    );
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
    if (this.keys) {
      const { keyring, source } = this.keys;
      this.logger.info({ keys: keyring.keyIds, source }, 'partner secrets keyring loaded');
    }
    const lookups = this.orgLookups;
    const engine = this.delivery;
    const fanout = new Fanout(this.dataSource, {
      providerOf: (orgId) => lookups.providerOf(orgId),
      onCreated: () => void engine?.wake(),
      clock: this.deliveryClock,
    });
    this.fanout = await subscribeFanout(this.bus, fanout, this.config.KAFKA_TOPIC_PREFIX, this.logger);
    engine?.start();
    await this.startUsageConsumer();
    this.usageRetention?.start();
    await this.erasure?.start();
    await this.orgErasure?.start();
  }

  protected override async stopWorkers(): Promise<void> {
    // The consumers and the retention loop together; then the delivery engine, which sends what the fan-out queued.
    await stopTogether([
      this.fanout,
      { stop: () => this.stopUsageConsumer() },
      this.usageRetention,
      this.erasure,
      this.orgErasure,
    ]);
    await this.delivery?.stop();
    this.identity.close();
    this.channels.close();
  }
}
