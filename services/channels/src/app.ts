import {
  ServiceApp,
  callPolicyOf,
  loadKeyring,
  type LoadedKeyring,
  type RawRoute,
  type ServiceAppDeps,
  type Subscription,
} from '@svc/kit';
import { ChannelsServiceService } from '@svc/proto/channels/v1';
import { BotSettingsServiceService } from '@svc/proto/channels/v1/bot_settings';
import type { ChannelsConfig } from './config';
import { channelsData } from './data';
import { BotSettings, botSettingsService } from './domain/bot-settings';
import { CHANNELS_TOPIC, INBOUND_TOPIC } from './domain/events';
import { InboundBackends } from './domain/inbound/backends';
import { InboundConsumer, type InboundSinks } from './domain/inbound/consumer';
import { InboundMessages } from './domain/inbound/messages';
import { PlatformChannels } from './domain/platform-channels';
import { resealIdentitySecrets } from './domain/reseal';
import { IdentitySecrets } from './domain/secrets';
import { WebIntegrations } from './domain/web-integrations';
import { channelsService } from './grpc/channels-handlers';
import { PlatformChannelsServiceService } from '@svc/proto/channels/v1/platform_channels';
import { PlatformConnections } from './domain/connect/connect';
import { HostedConnect } from './domain/connect/hosted';
import { ManagedChannels } from './domain/manage/channels';
import { platformChannelsService } from './grpc/platform-channels-handlers';
import { connectCallbackRoute } from './http/connect-callback';
import { inboundRoute } from './http/inbound-route';
import { InboundWebhooks } from './http/inbound-webhooks';
import { TelegramApi } from './platforms/chat-app-b';
import { platformAdapters, type PlatformAdapters } from './platforms/registry';

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

export interface ChannelsAppDeps extends ServiceAppDeps {
  /** Where contacts and the inbox answer (the embedded stack's ports); else CONTACTS_GRPC_URL / INBOX_GRPC_URL. */
  contactsAddress?: () => string;
  inboxAddress?: () => string;
  /** The platform adapters; default: platforms/registry.ts on the configured base URLs (tests give their own). */
  adapters?: PlatformAdapters;
}

/** The channels of an org (docs/decisions/0075): web integrations today, the messaging platforms next. */
export class ChannelsApp extends ServiceApp<ChannelsConfig> {
  private keys: LoadedKeyring | undefined;
  private inbound: InboundWebhooks | undefined;
  private hostedConnect: HostedConnect | undefined;
  /** Platform channels with their secrets opened (set once started). */
  platformChannels: PlatformChannels | undefined;
  /** The platform adapters (platforms/registry.ts), on the configured base URLs. */
  readonly adapters: PlatformAdapters;

  private inboundBackends: InboundBackends | undefined;
  private inboundConsumer: InboundConsumer | undefined;
  private inboundSubscription: Subscription | undefined;

  constructor(
    config: ChannelsConfig,
    private readonly channelsDeps: ChannelsAppDeps = {},
  ) {
    super(
      {
        name: 'channels',
        grpcServices: [
          'svc.channels.v1.ChannelsService',
          'svc.channels.v1.PlatformChannelsService',
          'svc.channels.v1.BotSettingsService',
        ],
        data: channelsData,
        publishes: [CHANNELS_TOPIC, INBOUND_TOPIC],
      },
      config,
      channelsDeps,
    );
    this.adapters = channelsDeps.adapters ?? platformAdapters(config);
  }

  protected register(): void {
    // Loaded when serving, not at construction: the migration Job runs without keys.
    this.keys = channelsKeyring(this.config);
    const secrets = new IdentitySecrets(this.keys.keyring);
    const webIntegrations = new WebIntegrations(this.dataSource, () => this.relay, secrets);
    const platformChannels = new PlatformChannels(this.dataSource, this.keys.keyring);
    this.platformChannels = platformChannels;
    this.inbound = new InboundWebhooks(this.dataSource, () => this.relay, platformChannels, this.adapters, this.logger);
    this.inboundBackends = new InboundBackends(
      () => this.signer,
      {
        contacts: this.channelsDeps.contactsAddress ?? (() => this.config.CONTACTS_GRPC_URL),
        inbox: this.channelsDeps.inboxAddress ?? (() => this.config.INBOX_GRPC_URL),
      },
      callPolicyOf(this.config),
    );
    this.inboundConsumer = new InboundConsumer(
      this.dataSource,
      platformChannels,
      this.adapters,
      new InboundMessages(this.dataSource, this.inboundBackends, this.logger),
      () => this.inboundSinks(),
      this.logger,
    );
    this.grpc.add(
      ChannelsServiceService,
      channelsService(
        { webIntegrations, secrets, dataSource: this.dataSource },
        { verifier: this.verifier, logger: this.logger },
      ),
      'svc.channels.v1.ChannelsService',
    );
    const platforms = () => platformChannels;
    const connections = new PlatformConnections(
      this.dataSource,
      () => this.relay,
      platforms,
      this.adapters,
      this.config,
      this.logger,
    );
    this.hostedConnect = new HostedConnect(this.dataSource, connections, this.config, this.logger);
    this.grpc.add(
      PlatformChannelsServiceService,
      platformChannelsService(
        {
          channels: new ManagedChannels(this.dataSource, () => this.relay, platforms, this.adapters, this.logger),
          connections,
          hosted: this.hostedConnect,
        },
        { verifier: this.verifier, logger: this.logger },
      ),
      'svc.channels.v1.PlatformChannelsService',
    );
    const botSettings = new BotSettings(
      platformChannels,
      new TelegramApi(this.config.CHAT_APP_B_API_URL, this.config.PLATFORM_TIMEOUT_MS),
    );
    this.grpc.add(
      BotSettingsServiceService,
      botSettingsService(botSettings, { verifier: this.verifier, logger: this.logger }),
      'svc.channels.v1.BotSettingsService',
    );
  }

  /** `/channels/in/:channelId`, the platforms' webhooks (decision 0135). */
  protected override rawRoutes(): RawRoute[] {
    return [
      inboundRoute(() => {
        if (!this.inbound) throw new Error('channels is not started');
        return this.inbound;
      }),
      // The hosted connect's return (decision 0122).
      connectCallbackRoute(() => {
        if (!this.hostedConnect) throw new Error('channels is not started');
        return this.hostedConnect;
      }, this.logger),
    ];
  }

  /** Where the inbound consumer hands status callbacks (decision 0136). */
  protected inboundSinks(): InboundSinks {
    return UNWIRED_SINKS;
  }

  /** Moves identity secrets sealed under an older key to the active one (key rotation), then serves. */
  protected override async startWorkers(): Promise<void> {
    this.inboundSubscription = await this.inboundConsumer?.subscribe(this.bus, this.config.KAFKA_TOPIC_PREFIX);
    if (!this.keys) return;
    const { keyring, source } = this.keys;
    this.logger.info({ keys: keyring.keyIds, source }, 'identity secrets keyring loaded');
    const report = await resealIdentitySecrets(this.dataSource, keyring);
    if (report.rewrapped)
      this.logger.info({ rewrapped: report.rewrapped, activeKey: keyring.activeKeyId }, 'identity secrets re-sealed');
    for (const { integrationId, error } of report.unreadable)
      this.logger.error({ integrationId }, `identity secret cannot be opened: ${error}`);
  }

  protected override async stopWorkers(): Promise<void> {
    await this.inboundSubscription?.stop();
    this.inboundBackends?.close();
  }
}

// TEMPORARY until the delivery (i16-outbound) and templates (i16-meta) sinks are merged: a status callback fails, so
// the bus retries it and dead-letters it rather than losing it.
const UNWIRED_SINKS: InboundSinks = {
  deliveryStatus: {
    applyStatus: () => Promise.reject(new Error('delivery status sink not wired')),
    applyWatermark: () => Promise.reject(new Error('delivery status sink not wired')),
  },
  templateStatus: { applyTemplateStatus: () => Promise.reject(new Error('template status sink not wired')) },
};
