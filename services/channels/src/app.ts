import { ServiceApp, loadKeyring, type LoadedKeyring, type RawRoute, type ServiceAppDeps } from '@svc/kit';
import { ChannelsServiceService } from '@svc/proto/channels/v1';
import type { ChannelsConfig } from './config';
import { channelsData } from './data';
import { CHANNELS_TOPIC, INBOUND_TOPIC } from './domain/events';
import { PlatformChannels } from './domain/platform-channels';
import { resealIdentitySecrets } from './domain/reseal';
import { IdentitySecrets } from './domain/secrets';
import { WebIntegrations } from './domain/web-integrations';
import { channelsService } from './grpc/channels-handlers';
import { inboundRoute } from './http/inbound-route';
import { InboundWebhooks } from './http/inbound-webhooks';
import { platformAdapters } from './platforms/registry';

export const EMBEDDED_KEY_FILE = 'channels-secrets.key';

/** The keyring sealing identity secrets: CHANNELS_SECRETS_KEYS, else (development) a generated key file. */
export function channelsKeyring(config: ChannelsConfig): LoadedKeyring {
  return loadKeyring({
    naming: { secretOf: 'the identity secret of web integration', setting: 'CHANNELS_SECRETS_KEYS' },
    keys: config.CHANNELS_SECRETS_KEYS,
    keyFile: config.CHANNELS_SECRETS_KEY_FILE,
    embeddedFileName: EMBEDDED_KEY_FILE,
    NODE_ENV: config.NODE_ENV,
    DB_URL: config.DB_URL,
  });
}

/** The channels of an org (docs/decisions/0075): web integrations today, the messaging platforms next. */
export class ChannelsApp extends ServiceApp<ChannelsConfig> {
  private keys: LoadedKeyring | undefined;
  private inbound: InboundWebhooks | undefined;
  /** The platform adapters (platforms/registry.ts), on the configured base URLs. */
  readonly adapters = platformAdapters(this.config);

  constructor(config: ChannelsConfig, deps: ServiceAppDeps = {}) {
    super(
      {
        name: 'channels',
        grpcServices: ['svc.channels.v1.ChannelsService'],
        data: channelsData,
        publishes: [CHANNELS_TOPIC, INBOUND_TOPIC],
      },
      config,
      deps,
    );
  }

  protected register(): void {
    // Loaded when serving, not at construction: the migration Job runs without keys.
    this.keys = channelsKeyring(this.config);
    const secrets = new IdentitySecrets(this.keys.keyring);
    const webIntegrations = new WebIntegrations(this.dataSource, () => this.relay, secrets);
    const platformChannels = new PlatformChannels(this.dataSource, this.keys.keyring);
    this.inbound = new InboundWebhooks(this.dataSource, () => this.relay, platformChannels, this.adapters, this.logger);
    this.grpc.add(
      ChannelsServiceService,
      channelsService(
        { webIntegrations, secrets, dataSource: this.dataSource },
        { verifier: this.verifier, logger: this.logger },
      ),
      'svc.channels.v1.ChannelsService',
    );
  }

  /** `/channels/in/:channelId`, the platforms' webhooks (decision 0135). */
  protected override rawRoutes(): RawRoute[] {
    return [
      inboundRoute(() => {
        if (!this.inbound) throw new Error('channels is not started');
        return this.inbound;
      }),
    ];
  }

  /** Moves identity secrets sealed under an older key to the active one (key rotation), then serves. */
  protected override async startWorkers(): Promise<void> {
    if (!this.keys) return;
    const { keyring, source } = this.keys;
    this.logger.info({ keys: keyring.keyIds, source }, 'identity secrets keyring loaded');
    const report = await resealIdentitySecrets(this.dataSource, keyring);
    if (report.rewrapped)
      this.logger.info({ rewrapped: report.rewrapped, activeKey: keyring.activeKeyId }, 'identity secrets re-sealed');
    for (const { integrationId, error } of report.unreadable)
      this.logger.error({ integrationId }, `identity secret cannot be opened: ${error}`);
  }
}
