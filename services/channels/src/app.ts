import { ServiceApp, loadKeyring, type LoadedKeyring, type ServiceAppDeps } from '@svc/kit';
import { ChannelsServiceService } from '@svc/proto/channels/v1';
import type { ChannelsConfig } from './config';
import { channelsData } from './data';
import { CHANNELS_TOPIC } from './domain/events';
import { IdentitySecrets } from './domain/secrets';
import { WebIntegrations } from './domain/web-integrations';
import { channelsService } from './grpc/channels-handlers';

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
  constructor(config: ChannelsConfig, deps: ServiceAppDeps = {}) {
    super(
      {
        name: 'channels',
        grpcServices: ['svc.channels.v1.ChannelsService'],
        data: channelsData,
        publishes: [CHANNELS_TOPIC],
      },
      config,
      deps,
    );
  }

  protected register(): void {
    const { keyring, source } = channelsKeyring(this.config);
    this.logger.info({ keys: keyring.keyIds, source }, 'identity secrets keyring loaded');
    const secrets = new IdentitySecrets(keyring);
    const webIntegrations = new WebIntegrations(this.dataSource, () => this.relay, secrets);
    this.grpc.add(
      ChannelsServiceService,
      channelsService(
        { webIntegrations, secrets, dataSource: this.dataSource },
        { verifier: this.verifier, logger: this.logger },
      ),
      'svc.channels.v1.ChannelsService',
    );
  }
}
