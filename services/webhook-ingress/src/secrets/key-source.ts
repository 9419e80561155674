import { loadKeyring as loadServiceKeyring, type KeyringNaming, type LoadedKeyring } from '@svc/kit';
import type { IngressConfig } from '../config';

export type { LoadedKeyring };
export const EMBEDDED_KEY_FILE = 'webhook-secrets.key';
export const SIGNING_SECRETS_NAMING: KeyringNaming = {
  secretOf: 'the signing secret of connection',
  setting: 'WEBHOOK_SECRETS_KEYS',
};

/** The keyring sealing provider signing secrets (docs/decisions/0014): WEBHOOK_SECRETS_KEYS, else a key file. */
export function loadKeyring(config: IngressConfig): LoadedKeyring {
  return loadServiceKeyring({
    naming: SIGNING_SECRETS_NAMING,
    keys: config.WEBHOOK_SECRETS_KEYS,
    keyFile: config.WEBHOOK_SECRETS_KEY_FILE,
    embeddedFileName: EMBEDDED_KEY_FILE,
    NODE_ENV: config.NODE_ENV,
    DB_URL: config.DB_URL,
  });
}
