import { ServiceApp, loadKeyring, type LoadedKeyring, type ServiceAppDeps } from '@svc/kit';
import { ChannelsServiceService } from '@svc/proto/channels/v1';
import { BotSettingsServiceService } from '@svc/proto/channels/v1/bot_settings';
import type { ChannelsConfig } from './config';
import { channelsData } from './data';
import { BotSettings, botSettingsService } from './domain/bot-settings';
import { CHANNELS_TOPIC } from './domain/events';
import { resealIdentitySecrets } from './domain/reseal';
import { IdentitySecrets } from './domain/secrets';
import { WebIntegrations } from './domain/web-integrations';
import { channelsService } from './grpc/channels-handlers';
import { TelegramApi } from './platforms/chat-app-b';
import { PlatformChannels } from './domain/platform-channels';

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

  constructor(config: ChannelsConfig, deps: ServiceAppDeps = {}) {
    super(
      {
        name: 'channels',
        grpcServices: ['svc.channels.v1.ChannelsService', 'svc.channels.v1.BotSettingsService'],
        data: channelsData,
        publishes: [CHANNELS_TOPIC],
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
    this.grpc.add(
      ChannelsServiceService,
      channelsService(
        { webIntegrations, secrets, dataSource: this.dataSource },
        { verifier: this.verifier, logger: this.logger },
      ),
      'svc.channels.v1.ChannelsService',
    );
    const botSettings = new BotSettings(
      new PlatformChannels(this.dataSource, this.keys.keyring),
      new TelegramApi(this.config.CHAT_APP_B_API_URL, this.config.PLATFORM_TIMEOUT_MS),
    );
    this.grpc.add(
      BotSettingsServiceService,
      botSettingsService(botSettings, { verifier: this.verifier, logger: this.logger }),
      'svc.channels.v1.BotSettingsService',
    );
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
