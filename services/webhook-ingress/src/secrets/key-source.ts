import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseDbUrl } from '@svc/kit';
import type { IngressConfig } from '../config';
import { SecretKeyring, newKeyEntry, parseKeys } from './keyring';

export const EMBEDDED_KEY_FILE = 'webhook-secrets.key';

export interface LoadedKeyring {
  keyring: SecretKeyring;
  /** Where the keys came from, for the start-up log (never the keys themselves). */
  source: string;
}

/** The key file of a development install: WEBHOOK_SECRETS_KEY_FILE, else next to its SQLite file, else `.data/`. */
export function embeddedKeyFile(config: Pick<IngressConfig, 'DB_URL' | 'WEBHOOK_SECRETS_KEY_FILE'>): string {
  if (config.WEBHOOK_SECRETS_KEY_FILE) return path.resolve(config.WEBHOOK_SECRETS_KEY_FILE);
  const db = parseDbUrl(config.DB_URL);
  const dir = db.family === 'sqlite' ? path.dirname(path.resolve(db.database)) : path.resolve('.data');
  return path.join(dir, EMBEDDED_KEY_FILE);
}

/**
 * Reads the key file, creating it (mode 0600, a fresh random key in the WEBHOOK_SECRETS_KEYS format) when it does not
 * exist. `wx` makes concurrent first starts agree on one key: the loser reads the winner's file.
 */
export function readOrCreateKeyFile(file: string): string {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${newKeyEntry(`local-${randomBytes(3).toString('hex')}`)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/**
 * The keyring of this process: WEBHOOK_SECRETS_KEYS when set (production requires it: config.ts); in tests and on an
 * in-memory database a random key that lives as long as the data; otherwise (development) a generated key kept in a
 * file next to the data, so restarts can open what earlier runs sealed.
 */
export function loadKeyring(config: IngressConfig): LoadedKeyring {
  if (config.WEBHOOK_SECRETS_KEYS)
    return { keyring: new SecretKeyring(parseKeys(config.WEBHOOK_SECRETS_KEYS)), source: 'WEBHOOK_SECRETS_KEYS' };
  if (config.NODE_ENV === 'production')
    throw new Error('WEBHOOK_SECRETS_KEYS is required in production (a key file is a development convenience)');
  if (config.NODE_ENV === 'test' || config.DB_URL === 'sqlite::memory:')
    return { keyring: new SecretKeyring([{ id: 'ephemeral', key: randomBytes(32) }]), source: 'ephemeral (tests)' };
  const file = embeddedKeyFile(config);
  try {
    return { keyring: new SecretKeyring(parseKeys(readOrCreateKeyFile(file))), source: file };
  } catch (error) {
    throw new Error(`webhook secrets key file ${file}: ${(error as Error).message}`, { cause: error });
  }
}
