import {
  exitWith,
  openDataSource,
  runSecretsCli,
  withoutBus,
  type ConfigSource,
  type SealedSecretsStore,
} from '@svc/kit';
import { ingressConfig } from '../config';
import { ingressData } from '../data';
import { loadKeyring } from '../secrets/key-source';
import { resealSigningSecrets, signingSecretsByKey } from '../secrets/signing-secrets';

/** The providers' signing secrets of connections (docs/decisions/0014), for the kit's `secrets` commands. */
export function signingSecretsStore(env: ConfigSource = process.env): SealedSecretsStore {
  return {
    what: 'signing secrets',
    setting: 'WEBHOOK_SECRETS_KEYS',
    async open() {
      const config = ingressConfig(withoutBus(env));
      const keys = loadKeyring(config);
      return { keys, dataSource: await openDataSource({ ...ingressData, url: config.DB_URL }, { migrate: false }) };
    },
    async reseal(dataSource, { keyring }) {
      const report = await resealSigningSecrets(dataSource, keyring);
      const unreadable = report.unreadable.map(({ connectionId, error }) => ({
        id: `connection ${connectionId}`,
        error,
      }));
      return { sealed: report.sealed, rewrapped: report.rewrapped, unreadable };
    },
    countByKey: signingSecretsByKey,
  };
}

/** `secrets status|reseal|new-key`: reads the same environment as the service (DB_URL, WEBHOOK_SECRETS_KEYS, …). */
export function secretsCli(argv: string[]): Promise<number> {
  return runSecretsCli(argv, signingSecretsStore());
}

if (require.main === module) exitWith(secretsCli(process.argv.slice(2)));
