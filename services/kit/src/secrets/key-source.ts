import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseDbUrl } from '../db/data-source';
import { SecretKeyring, newKeyEntry, parseKeys, type KeyringNaming } from './keyring';

export interface LoadedKeyring {
  keyring: SecretKeyring;
  /** Where the keys came from, for the start-up log (never the keys themselves). */
  source: string;
}

/** Where a service's sealing keys come from (decision 0014): a setting, else (development) a generated key file. */
export interface KeyringSource {
  naming: KeyringNaming;
  /** The setting's value (comma-separated `<keyId>:<base64>`), empty when unset. */
  keys: string | undefined;
  /** Overrides where a development install keeps its generated key. */
  keyFile: string | undefined;
  /** The file name next to the SQLite database (or under `.data/` on a MySQL-family URL). */
  embeddedFileName: string;
  NODE_ENV: string;
  DB_URL: string;
}

/** The key file of a development install: `keyFile`, else next to its SQLite file, else `.data/`. */
export function embeddedKeyFile(source: Pick<KeyringSource, 'keyFile' | 'embeddedFileName' | 'DB_URL'>): string {
  if (source.keyFile) return path.resolve(source.keyFile);
  const db = parseDbUrl(source.DB_URL);
  const dir = db.family === 'sqlite' ? path.dirname(path.resolve(db.database)) : path.resolve('.data');
  return path.join(dir, source.embeddedFileName);
}

/**
 * Reads the key file, creating it (mode 0600, a fresh random key in the key-list format) when it does not exist.
 * `wx` makes concurrent first starts agree on one key: the loser reads the winner's file.
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
 * The keyring of this process: the configured keys when set (production requires them); in tests and on an in-memory
 * database a random key that lives as long as the data; otherwise (development) a generated key kept in a file next
 * to the data, so restarts can open what earlier runs sealed.
 */
export function loadKeyring(source: KeyringSource): LoadedKeyring {
  const { naming } = source;
  if (source.keys) return { keyring: new SecretKeyring(parseKeys(source.keys), naming), source: naming.setting };
  if (source.NODE_ENV === 'production')
    throw new Error(`${naming.setting} is required in production (a key file is a development convenience)`);
  if (source.NODE_ENV === 'test' || source.DB_URL === 'sqlite::memory:')
    return {
      keyring: new SecretKeyring([{ id: 'ephemeral', key: randomBytes(32) }], naming),
      source: 'ephemeral (tests)',
    };
  const file = embeddedKeyFile(source);
  try {
    return { keyring: new SecretKeyring(parseKeys(readOrCreateKeyFile(file)), naming), source: file };
  } catch (error) {
    throw new Error(`${naming.setting} key file ${file}: ${(error as Error).message}`, { cause: error });
  }
}
