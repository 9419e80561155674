import {
  exitWith,
  openDataSource,
  runSecretsCli,
  withoutBus,
  type ConfigSource,
  type SealedSecretsStore,
} from '@svc/kit';
import { channelsKeyring } from '../app';
import { channelsConfig } from '../config';
import { channelsData } from '../data';
import { identitySecretsByKey, resealIdentitySecrets } from '../domain/reseal';

/** The web integrations' identity secrets (docs/decisions/0075), for the kit's `secrets` commands. */
export function identitySecretsStore(env: ConfigSource = process.env): SealedSecretsStore {
  return {
    what: 'identity secrets',
    setting: 'CHANNELS_SECRETS_KEYS',
    async open() {
      const config = channelsConfig(withoutBus(env));
      const keys = channelsKeyring(config);
      return { keys, dataSource: await openDataSource({ ...channelsData, url: config.DB_URL }, { migrate: false }) };
    },
    async reseal(dataSource, { keyring }) {
      const report = await resealIdentitySecrets(dataSource, keyring);
      const unreadable = report.unreadable.map(({ integrationId, error }) => ({
        id: `web integration ${integrationId}`,
        error,
      }));
      return { rewrapped: report.rewrapped, unreadable };
    },
    countByKey: identitySecretsByKey,
  };
}

/** `secrets status|reseal|new-key`: reads the same environment as the service (DB_URL, CHANNELS_SECRETS_KEYS, …). */
export function secretsCli(argv: string[], env: ConfigSource = process.env): Promise<number> {
  return runSecretsCli(argv, identitySecretsStore(env));
}

if (require.main === module) exitWith(secretsCli(process.argv.slice(2)));
