import { callPolicyOf, Peer, ServiceApp, type LoadedKeyring, type ServiceAppDeps } from '@svc/kit';
import { ChannelsServiceClient } from '@svc/proto/channels/v1';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { PartnerWebhookServiceService } from '@svc/proto/partner/v1/partner_webhooks';
import type { PartnerConfig } from './config';
import { partnerData } from './data';
import { WebhookSecrets, loadPartnerKeyring } from './domain/webhook-secrets';
import { PartnerDeliveries, ReplayWhenDue, type DeliveryReplayer } from './domain/webhooks/deliveries';
import { PartnerWebhooks } from './domain/webhooks/webhooks';
import { PARTNER_WEBHOOK_GRPC_SERVICE, partnerWebhookService } from './grpc/webhooks-handlers';

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
  private keys: LoadedKeyring | undefined;
  /** The webhooks' signing secrets (the delivery engine signs with `signingSecrets`); set when serving. */
  protected webhookSecrets: WebhookSecrets | undefined;
  /** What replayPartnerWebhookDelivery does: until the delivery engine replaces it, the delivery is due now. */
  protected replayer: DeliveryReplayer | undefined;

  constructor(config: PartnerConfig, deps: PartnerDeps = {}) {
    super(
      { name: 'partner', grpcServices: [PARTNER_WEBHOOK_GRPC_SERVICE], data: partnerData, publishes: [] },
      config,
      deps,
    );
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
    const replayer = new ReplayWhenDue(this.dataSource);
    this.replayer = replayer;
    this.grpc.add(
      PartnerWebhookServiceService,
      partnerWebhookService(
        {
          webhooks: new PartnerWebhooks(this.dataSource, secrets, {
            allowInsecure: this.config.PARTNER_WEBHOOK_INSECURE_URLS,
          }),
          deliveries: new PartnerDeliveries(this.dataSource, () => this.replayer ?? replayer),
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
  }

  protected override async stopWorkers(): Promise<void> {
    this.identity.close();
    this.channels.close();
  }
}
