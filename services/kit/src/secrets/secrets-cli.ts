import type { DataSource } from 'typeorm';
import type { ConfigSource } from '../load-config';
import { openDataSource, type DataSourceSpec } from '../db/data-source';
import { newKeyEntry, type SecretKeyring } from './keyring';
import type { LoadedKeyring } from './key-source';

/** What one service's re-seal pass did (each service's own report, in these terms). */
export interface SecretsResealed {
  /** Plain-text values of earlier versions, now sealed (webhook-ingress only). */
  sealed?: number;
  /** Values sealed under another key, now under the active one. */
  rewrapped: number;
  /** Values no configured key opens, by the row that holds them. */
  unreadable: { id: string; error: string }[];
}

/** The sealed secrets of one service, as `secrets status|reseal` works on them (decision 0014). */
export interface SealedSecretsStore {
  /** What the secrets are, for the output: "signing secrets", "identity secrets". */
  what: string;
  /** The setting holding the keys, for the usage text: WEBHOOK_SECRETS_KEYS, CHANNELS_SECRETS_KEYS. */
  setting: string;
  /** The service's entities and migrations. */
  data: Omit<DataSourceSpec, 'url'>;
  /** The keyring and the database URL, from the environment the service serves with. */
  load(env: ConfigSource): { keys: LoadedKeyring; dbUrl: string };
  /** Re-seals everything not under the active key (what start-up does). */
  reseal(dataSource: DataSource, keyring: SecretKeyring): Promise<SecretsResealed>;
  /** How many values each key id seals (`legacy`: plain text of earlier versions; `malformed`). */
  countByKey(dataSource: DataSource): Promise<Record<string, number>>;
}

export interface CliOutput {
  log(line: string): void;
  error(line: string): void;
}

/**
 * `main.js secrets new-key|status|reseal`: the operator commands for a service's sealing keys (docs/deploy.md, key
 * rotation). Prints counts, never a secret or a key (except `new-key`'s fresh one). Exit code: 0 when every value
 * is under the first key; 1 when some are not (status) or cannot be opened (reseal); 2 for a usage error.
 */
export async function runSecretsCli(
  argv: string[],
  store: SealedSecretsStore,
  env: ConfigSource,
  out: CliOutput = console,
): Promise<number> {
  const [command, arg] = argv;
  if (command === 'new-key') {
    out.log(newKeyEntry(arg));
    return 0;
  }
  if (command !== 'status' && command !== 'reseal') {
    out.error(usage(store));
    return 2;
  }
  const { keys, dbUrl } = store.load(env);
  const { keyring, source } = keys;
  const dataSource = await openDataSource({ ...store.data, url: dbUrl }, { migrate: false });
  try {
    out.log(`keys (${source}): ${keyring.keyIds.join(', ')}; active: ${keyring.activeKeyId}`);
    if (command === 'reseal') {
      const report = await store.reseal(dataSource, keyring);
      const sealed = report.sealed === undefined ? '' : `sealed ${report.sealed} plain-text ${store.what}, `;
      out.log(`${sealed}re-sealed ${report.rewrapped} ${store.what} under ${keyring.activeKeyId}`);
      for (const { id, error } of report.unreadable) out.error(`${id}: ${error}`);
      if (report.unreadable.length) return 1;
    }
    const counts = await store.countByKey(dataSource);
    const lines = Object.entries(counts).map(([id, n]) => `${id}: ${n}`);
    out.log(lines.join('\n') || `no ${store.what}`);
    return Object.keys(counts).every((id) => id === keyring.activeKeyId) ? 0 : 1;
  } finally {
    await dataSource.destroy();
  }
}

function usage(store: SealedSecretsStore): string {
  return `usage: secrets <command>   (node dist/src/main.js secrets <command> in the image)
  new-key [keyId]  print a fresh <keyId>:<base64> entry for ${store.setting}
  status           ${store.what} per key id; exit 1 unless all are under the first key of ${store.setting}
  reseal           re-seal every one under the first key (what start-up does); exit 1 if one cannot be opened
                   with the configured keys`;
}

/** Runs a CLI entry point as a process: its exit code, or 1 with the error printed. */
export function exitWith(run: Promise<number>): void {
  run.then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
