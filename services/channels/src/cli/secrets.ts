import { exitWith, runSecretsCli, withoutBus, type SealedSecretsStore } from '@svc/kit';
import { channelsKeyring } from '../app';
import { channelsConfig } from '../config';
import { channelsData } from '../data';
import { identitySecretsByKey, resealIdentitySecrets } from '../domain/reseal';

/** The web integrations' identity secrets (docs/decisions/0075) for the kit's `secrets` commands. */
export const identitySecretsStore: SealedSecretsStore = {
  what: 'identity secrets',
  setting: 'CHANNELS_SECRETS_KEYS',
  data: channelsData,
  load(env) {
    const config = channelsConfig(withoutBus(env));
    return { keys: channelsKeyring(config), dbUrl: config.DB_URL };
  },
  async reseal(dataSource, keyring) {
    const { rewrapped, unreadable } = await resealIdentitySecrets(dataSource, keyring);
    return { rewrapped, unreadable: unreadable.map((u) => ({ id: `web integration ${u.integrationId}`, ...u })) };
  },
  countByKey: identitySecretsByKey,
};

/** `secrets status|reseal|new-key`, with the service's environment (DB_URL, CHANNELS_SECRETS_KEYS, …). */
export const secretsCli = (argv: string[]) => runSecretsCli(argv, identitySecretsStore, process.env);

if (require.main === module) exitWith(secretsCli(process.argv.slice(2)));
