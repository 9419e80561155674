import {
  ERASURE_PARTICIPANT_GRPC_SERVICE,
  ERASURE_TOPIC,
  ErasureParticipant,
  ORG_ERASURE_TOPIC,
  OrgErasureParticipant,
  ServiceApp,
  callPolicyOf,
  contactRowsPart,
  loadKeyring,
  type LoadedKeyring,
  type RawRoute,
  type ServiceAppDeps,
  type Subscription,
  stopTogether,
} from '@svc/kit';
import { CHANNELS_CONTACT_ROWS } from './domain/erasure';
import { channelsOrgPart } from './domain/org-erasure';
import { ChannelType, ChannelsServiceService } from '@svc/proto/channels/v1';
import { ChatAppATemplatesServiceService } from '@svc/proto/channels/v1/templates';
import { BotSettingsServiceService } from '@svc/proto/channels/v1/bot_settings';
import { BotSettings, botSettingsService } from './domain/bot-settings';
import { TelegramApi } from './platforms/chat-app-b';
import type { ChannelsConfig } from './config';
import { channelsData } from './data';
import { CHANNELS_TOPIC, INBOUND_TOPIC } from './domain/events';
import { InboundBackends } from './domain/inbound/backends';
import { InboundConsumer, type InboundSinks } from './domain/inbound/consumer';
import { InboundMessages } from './domain/inbound/messages';
import { PlatformChannels } from './domain/platform-channels';
import { resealSecrets } from './domain/reseal';
import { IdentitySecrets } from './domain/secrets';
import { WebIntegrations } from './domain/web-integrations';
import { channelsService } from './grpc/channels-handlers';
import { GrpcTemplateInbox } from './domain/templates/inbox';
import { ChatAppATemplateSends } from './domain/templates/template-sends';
import { ChatAppATemplates } from './domain/templates/templates';
import { TEMPLATES_GRPC_SERVICE, templatesService } from './grpc/templates-handlers';
import { PlatformChannelsServiceService } from '@svc/proto/channels/v1/platform_channels';
import { PlatformConnections } from './domain/connect/connect';
import { HostedConnect } from './domain/connect/hosted';
import { ManagedChannels } from './domain/manage/channels';
import { platformChannelsService } from './grpc/platform-channels-handlers';
import { connectCallbackRoute } from './http/connect-callback';
import { AppInboundWebhooks } from './http/app-inbound-webhooks';
import { appInboundRoute, inboundRoute } from './http/inbound-route';
import { InboundWebhooks } from './http/inbound-webhooks';
import { ChatAppAAdapter } from './platforms/chat-app-a';
import { platformAdapters, type PlatformAdapters } from './platforms/registry';
import { PLATFORM_SECRET_LOG_KEYS } from './platforms/secret-fields';
import { DeliveryBackends } from './delivery/backends';
import { DeliveryConsumer } from './delivery/consumer';
import { Reauthorizations } from './delivery/reauthorization';
import { FailedMessageRetries } from './delivery/retry';
import { DeliverySender } from './delivery/sender';
import { ConnectStateSweep } from './domain/connect/connect-state-sweep';
import { DeliveryStatusUpdates } from './delivery/status-sink';
import { deliveryService } from './grpc/delivery-handlers';
import { DeliveryServiceService } from '@svc/proto/channels/v1/delivery';

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
  private appInbound: AppInboundWebhooks | undefined;
  private hostedConnect: HostedConnect | undefined;
  /** Platform channels with their secrets opened (set once started). */
  platformChannels: PlatformChannels | undefined;
  /** The platform adapters (platforms/registry.ts), on the configured base URLs. */
  readonly adapters: PlatformAdapters;

  private inboundBackends: InboundBackends | undefined;
  private inboundConsumer: InboundConsumer | undefined;
  private inboundSubscription: Subscription | undefined;
  private deliveryBackends: DeliveryBackends | undefined;
  private deliveryConsumer: DeliveryConsumer | undefined;
  private deliverySubscription: Subscription | undefined;
  /** Deletes the hosted connect's expired state rows (decision 0122); tests run a sweep. */
  connectStateSweep: ConnectStateSweep | undefined;
  /** The outbound sender (decision 0141); tests wake it. */
  sender: DeliverySender | undefined;
  private templateInbox: GrpcTemplateInbox | undefined;
  /** CHAT_APP_A templates: also the inbound consumer's TemplateStatusSink. */
  templates: ChatAppATemplates | undefined;
  private erasure: ErasureParticipant | undefined;
  private orgErasure: OrgErasureParticipant | undefined;

  constructor(
    config: ChannelsConfig,
    private readonly channelsDeps: ChannelsAppDeps = {},
  ) {
    super(
      {
        name: 'channels',
        grpcServices: [
          'svc.channels.v1.ChannelsService',
          'svc.channels.v1.DeliveryService',
          TEMPLATES_GRPC_SERVICE,
          'svc.channels.v1.BotSettingsService',
          'svc.channels.v1.PlatformChannelsService',
          ERASURE_PARTICIPANT_GRPC_SERVICE,
        ],
        data: channelsData,
        publishes: [CHANNELS_TOPIC, INBOUND_TOPIC, ERASURE_TOPIC, ORG_ERASURE_TOPIC],
        secretLogKeys: PLATFORM_SECRET_LOG_KEYS,
      },
      config,
      channelsDeps,
    );
    this.adapters = channelsDeps.adapters ?? platformAdapters(config);
  }

  protected register(): void {
    this.erasure = new ErasureParticipant(this, contactRowsPart('channels', this.dataSource, CHANNELS_CONTACT_ROWS));
    this.orgErasure = new OrgErasureParticipant(this, channelsOrgPart());
    // Loaded when serving, not at construction: the migration Job runs without keys.
    this.keys = channelsKeyring(this.config);
    const secrets = new IdentitySecrets(this.keys.keyring);
    const webIntegrations = new WebIntegrations(this.dataSource, () => this.relay, secrets);
    const platformChannels = new PlatformChannels(this.dataSource, this.keys.keyring);
    this.platformChannels = platformChannels;
    this.inbound = new InboundWebhooks(this.dataSource, () => this.relay, platformChannels, this.adapters, this.logger);
    this.appInbound = new AppInboundWebhooks(
      this.dataSource,
      () => this.relay,
      platformChannels,
      this.config,
      this.logger,
    );
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
    this.registerDelivery(platformChannels);
    this.grpc.add(
      ChannelsServiceService,
      channelsService(
        { webIntegrations, secrets, dataSource: this.dataSource },
        { verifier: this.verifier, logger: this.logger },
      ),
      'svc.channels.v1.ChannelsService',
    );
    this.registerTemplates(platformChannels);
    const botSettings = new BotSettings(
      platformChannels,
      new TelegramApi(this.config.CHAT_APP_B_API_URL, this.config.PLATFORM_TIMEOUT_MS),
    );
    this.grpc.add(
      BotSettingsServiceService,
      botSettingsService(botSettings, { verifier: this.verifier, logger: this.logger }),
      'svc.channels.v1.BotSettingsService',
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
    this.hostedConnect = new HostedConnect(this.dataSource, connections, this.config, this.adapters, this.logger);
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
  }

  /** CHAT_APP_A templates and template sends (decisions 0128, 0129). */
  private registerTemplates(platformChannels: PlatformChannels): void {
    const adapter = this.adapters.get(ChannelType.CHAT_APP_A);
    this.templates = new ChatAppATemplates(
      this.dataSource,
      platformChannels,
      adapter instanceof ChatAppAAdapter ? adapter : undefined,
      this.logger,
    );
    this.templateInbox = new GrpcTemplateInbox(
      () => this.signer,
      this.channelsDeps.inboxAddress ?? (() => this.config.INBOX_GRPC_URL),
      callPolicyOf(this.config),
    );
    const sends = new ChatAppATemplateSends(this.dataSource, this.templates, this.templateInbox);
    this.grpc.add(
      ChatAppATemplatesServiceService,
      templatesService({ templates: this.templates, sends }, { verifier: this.verifier, logger: this.logger }),
      TEMPLATES_GRPC_SERVICE,
    );
  }

  /** The outbound side (decisions 0141, 0142): queue consumer, sender, status sink, retryFailedMessage. */
  private registerDelivery(platformChannels: PlatformChannels): void {
    const backends = (this.deliveryBackends = new DeliveryBackends(
      () => this.signer,
      {
        contacts: this.channelsDeps.contactsAddress ?? (() => this.config.CONTACTS_GRPC_URL),
        inbox: this.channelsDeps.inboxAddress ?? (() => this.config.INBOX_GRPC_URL),
      },
      callPolicyOf(this.config),
    ));
    const sender = (this.sender = new DeliverySender(
      this.dataSource,
      platformChannels,
      this.adapters,
      backends,
      new Reauthorizations(this.dataSource, () => this.relay, this.logger),
      this.logger,
      { pollMs: this.config.DELIVERY_POLL_MS, leaseMs: this.config.DELIVERY_LEASE_MS },
    ));
    this.deliveryConsumer = new DeliveryConsumer(this.dataSource, () => sender.wake(), this.logger);
    this.deliveryStatus = new DeliveryStatusUpdates(this.dataSource, backends, this.logger);
    const retries = new FailedMessageRetries(this.dataSource, platformChannels, backends, () => sender.wake());
    this.grpc.add(
      DeliveryServiceService,
      deliveryService(retries, { verifier: this.verifier, logger: this.logger }),
      'svc.channels.v1.DeliveryService',
    );
  }

  private deliveryStatus: DeliveryStatusUpdates | undefined;

  /** `/channels/in/:channelId` and `/channels/in/app/:kind`, the platforms' webhooks (decisions 0135, 0146). */
  protected override rawRoutes(): RawRoute[] {
    return [
      inboundRoute(() => {
        if (!this.inbound) throw new Error('channels is not started');
        return this.inbound;
      }),
      // The installation app's webhooks, for hosted-connected channels (decision 0146).
      appInboundRoute(() => {
        if (!this.appInbound) throw new Error('channels is not started');
        return this.appInbound;
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
    if (!this.deliveryStatus || !this.templates) throw new Error('channels is not started');
    return { deliveryStatus: this.deliveryStatus, templateStatus: this.templates };
  }

  /** Moves every secret sealed under an older key to the active one (key rotation), then serves. */
  protected override async startWorkers(): Promise<void> {
    this.inboundSubscription = await this.inboundConsumer?.subscribe(this.bus, this.config.KAFKA_TOPIC_PREFIX);
    this.deliverySubscription = await this.deliveryConsumer?.subscribe(this.bus, this.config.KAFKA_TOPIC_PREFIX);
    this.sender?.start();
    await this.erasure?.start();
    await this.orgErasure?.start();
    this.connectStateSweep = new ConnectStateSweep(this.dataSource, this.logger, {
      intervalMs: this.config.CHANNELS_CONNECT_STATE_SWEEP_MS,
    });
    this.connectStateSweep.start();
    if (!this.keys) return;
    const { keyring, source } = this.keys;
    this.logger.info({ keys: keyring.keyIds, source }, 'channels secrets keyring loaded');
    const report = await resealSecrets(this.dataSource, keyring);
    if (report.rewrapped)
      this.logger.info({ rewrapped: report.rewrapped, activeKey: keyring.activeKeyId }, 'sealed secrets re-sealed');
    for (const { owner, id, error } of report.unreadable)
      this.logger.error({ owner, id }, `sealed secret cannot be opened: ${error}`);
  }

  /**
   * Stops this process's delivery consumer and sender while it keeps serving (tests: another channels process on the
   * same database and topics is then the only one sending).
   */
  async stopDelivery(): Promise<void> {
    await this.deliverySubscription?.stop();
    this.deliverySubscription = undefined;
    await this.sender?.stop();
  }

  protected override async stopWorkers(): Promise<void> {
    // Consumers and the sweep together; then the sender, which sends what the delivery consumer queued.
    await stopTogether([
      this.connectStateSweep,
      this.erasure,
      this.orgErasure,
      this.inboundSubscription,
      this.deliverySubscription,
    ]);
    await this.sender?.stop();
    this.inboundBackends?.close();
    this.deliveryBackends?.close();
    this.templateInbox?.close();
  }
}
