import {
  callPolicyOf,
  ERASURE_PARTICIPANT_GRPC_SERVICE,
  ERASURE_TOPIC,
  ErasureParticipant,
  now,
  Peer,
  ServiceApp,
  type LoadedKeyring,
  type ServiceAppDeps,
  type Subscription,
} from '@svc/kit';
import { ChannelsServiceClient } from '@svc/proto/channels/v1';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { PartnerWebhookServiceService } from '@svc/proto/partner/v1/partner_webhooks';
import type { PartnerConfig } from './config';
import { partnerData } from './data';
import { DeliveryEngine } from './domain/delivery/engine';
import { partnerContactErasure } from './domain/erasure';
import { subscribeFanout } from './domain/fanout/consumer';
import { Fanout } from './domain/fanout/fanout';
import { OrgLookups } from './domain/org-lookups';
import { WebhookSecrets, loadPartnerKeyring } from './domain/webhook-secrets';
import { PartnerDeliveries, type DeliveryReplayer } from './domain/webhooks/deliveries';
import { PartnerWebhooks } from './domain/webhooks/webhooks';
import { PARTNER_WEBHOOK_GRPC_SERVICE, partnerWebhookService } from './grpc/webhooks-handlers';

export interface PartnerDeps extends ServiceAppDeps {
  /** Where identity listens, read at first use (the embedded stack knows it after start). */
  identityAddress?: () => string;
  /** Where channels listens, read at first use. */
  channelsAddress?: () => string;
  /** The time the delivery engine reads as now (tests move it). */
  deliveryClock?: () => Date;
}

/** How long an org's provider is reused: an org's parent never changes, so only memory bounds it. */
const PROVIDER_LOOKUP_TTL_MS = 10 * 60_000;

/**
 * Partner administration for TECH_PROVIDER orgs (services/partner/README.md): the fan-out webhook (registration,
 * Standard Webhooks deliveries with retries, the delivery log, replay) and the usage rollup of client orgs.
 */
export class PartnerApp extends ServiceApp<PartnerConfig> {
  protected readonly identity: Peer<IdentityServiceClient>;
  protected readonly channels: Peer<ChannelsServiceClient>;
  private keys: LoadedKeyring | undefined;
  /** The webhooks' signing secrets (the delivery engine signs with `signingSecrets`); set when serving. */
  protected webhookSecrets: WebhookSecrets | undefined;
  /** What replayPartnerWebhookDelivery does: the delivery engine's replay. */
  protected replayer: DeliveryReplayer | undefined;
  /** Sends the deliveries (every replica runs one); set when serving. */
  delivery: DeliveryEngine | undefined;
  private erasure: ErasureParticipant | undefined;
  private fanout: Subscription | undefined;
  private readonly deliveryClock: () => Date;

  constructor(config: PartnerConfig, deps: PartnerDeps = {}) {
    super(
      {
        name: 'partner',
        grpcServices: [PARTNER_WEBHOOK_GRPC_SERVICE, ERASURE_PARTICIPANT_GRPC_SERVICE],
        data: partnerData,
        publishes: [ERASURE_TOPIC],
      },
      config,
      deps,
    );
    this.deliveryClock = deps.deliveryClock ?? now;
    const policy = callPolicyOf(config);
    this.identity = new Peer(IdentityServiceClient, deps.identityAddress ?? (() => config.IDENTITY_GRPC_URL), policy);
    this.channels = new Peer(ChannelsServiceClient, deps.channelsAddress ?? (() => config.CHANNELS_GRPC_URL), policy);
  }

  protected register(): void {
    // Each area adds its gRPC service here (webhooks, usage) and its consumers in startWorkers.
    const deps = { verifier: this.verifier, logger: this.logger };
    // Loaded when serving, not at construction: the migration Job runs without keys.
    this.keys = loadPartnerKeyring(this.config);
    const secrets = new WebhookSecrets(this.keys.keyring, this.config.PARTNER_SECRET_ROTATION_GRACE_MS);
    this.webhookSecrets = secrets;
    const policy = { allowInsecure: this.config.PARTNER_WEBHOOK_INSECURE_URLS };
    const engine = new DeliveryEngine(this.dataSource, secrets, this.logger.child({ component: 'delivery' }), {
      policy,
      timeoutMs: this.config.PARTNER_DELIVERY_TIMEOUT_MS,
      concurrency: this.config.PARTNER_DELIVERY_CONCURRENCY,
      pollMs: this.config.PARTNER_DELIVERY_POLL_MS,
      clock: this.deliveryClock,
    });
    this.delivery = engine;
    this.replayer = engine;
    this.erasure = new ErasureParticipant(this, partnerContactErasure(this.dataSource));
    this.grpc.add(
      PartnerWebhookServiceService,
      partnerWebhookService(
        {
          webhooks: new PartnerWebhooks(this.dataSource, secrets, policy),
          deliveries: new PartnerDeliveries(this.dataSource, () => this.replayer ?? engine),
        },
        deps,
      ),
      PARTNER_WEBHOOK_GRPC_SERVICE,
    );
  }

  protected override async startWorkers(): Promise<void> {
    if (this.keys) {
      const { keyring, source } = this.keys;
      this.logger.info({ keys: keyring.keyIds, source }, 'partner secrets keyring loaded');
    }
    const lookups = new OrgLookups(this.identity, this.channels, () => this.signer, PROVIDER_LOOKUP_TTL_MS);
    const engine = this.delivery;
    const fanout = new Fanout(this.dataSource, {
      providerOf: (orgId) => lookups.providerOf(orgId),
      onCreated: () => void engine?.wake(),
      clock: this.deliveryClock,
    });
    this.fanout = await subscribeFanout(this.bus, fanout, this.config.KAFKA_TOPIC_PREFIX, this.logger);
    engine?.start();
    await this.erasure?.start();
  }

  protected override async stopWorkers(): Promise<void> {
    await this.fanout?.stop();
    await this.delivery?.stop();
    await this.erasure?.stop();
    this.identity.close();
    this.channels.close();
  }
}
