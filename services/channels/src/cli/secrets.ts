import { exitWith, runSecretsCli, withoutBus, type SealedSecretsStore } from '@svc/kit';
import { channelsKeyring } from '../app';
import { channelsConfig } from '../config';
import { channelsData } from '../data';
import { resealSecrets, sealedSecretsByKey } from '../domain/reseal';

/**
 * Every value sealed with CHANNELS_SECRETS_KEYS (web integrations' identity secrets, decision 0075; platform channels'
 * credentials and webhook secrets, decision 0121) for the kit's `secrets` commands.
 */
export const sealedSecretsStore: SealedSecretsStore = {
  what: 'sealed secrets',
  setting: 'CHANNELS_SECRETS_KEYS',
  data: channelsData,
  load(env) {
    const config = channelsConfig(withoutBus(env));
    return { keys: channelsKeyring(config), dbUrl: config.DB_URL };
  },
  async reseal(dataSource, keyring) {
    const { rewrapped, unreadable } = await resealSecrets(dataSource, keyring);
    return { rewrapped, unreadable: unreadable.map((u) => ({ id: `${u.owner} ${u.id}`, error: u.error })) };
  },
  countByKey: sealedSecretsByKey,
};

/** `secrets status|reseal|new-key`, with the service's environment (DB_URL, CHANNELS_SECRETS_KEYS, …). */
export const secretsCli = (argv: string[]) => runSecretsCli(argv, sealedSecretsStore, process.env);

if (require.main === module) exitWith(secretsCli(process.argv.slice(2)));
