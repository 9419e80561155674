import { exitWith, runSecretsCli, withoutBus, type SealedSecretsStore } from '@svc/kit';
import { ingressConfig } from '../config';
import { ingressData } from '../data';
import { loadKeyring } from '../secrets/key-source';
import { resealSigningSecrets, signingSecretsByKey } from '../secrets/signing-secrets';

/** The providers' signing secrets of connections (docs/decisions/0014) for the kit's `secrets` commands. */
export const signingSecretsStore: SealedSecretsStore = {
  what: 'signing secrets',
  setting: 'WEBHOOK_SECRETS_KEYS',
  data: ingressData,
  load(env) {
    const config = ingressConfig(withoutBus(env));
    return { keys: loadKeyring(config), dbUrl: config.DB_URL };
  },
  async reseal(dataSource, keyring) {
    const { sealed, rewrapped, unreadable } = await resealSigningSecrets(dataSource, keyring);
    return { sealed, rewrapped, unreadable: unreadable.map((u) => ({ id: `connection ${u.connectionId}`, ...u })) };
  },
  countByKey: signingSecretsByKey,
};

/** `secrets status|reseal|new-key`, with the service's environment (DB_URL, WEBHOOK_SECRETS_KEYS, …). */
export const secretsCli = (argv: string[]) => runSecretsCli(argv, signingSecretsStore, process.env);

if (require.main === module) exitWith(secretsCli(process.argv.slice(2)));
