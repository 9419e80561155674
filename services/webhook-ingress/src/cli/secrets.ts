import { openDataSource, withoutBus } from '@svc/kit';
import { ingressConfig } from '../config';
import { ingressData } from '../data';
import { loadKeyring } from '../secrets/key-source';
import { newKeyEntry } from '@svc/kit';
import { resealSigningSecrets, signingSecretsByKey } from '../secrets/signing-secrets';

const USAGE = `usage: secrets <command>   (node dist/src/main.js secrets <command> in the image)
  new-key [keyId]  print a fresh <keyId>:<base64> entry for WEBHOOK_SECRETS_KEYS
  status           signing secrets per key id ("legacy" = plain text from before 0014); exit 1 unless all are
                   under the first key of WEBHOOK_SECRETS_KEYS
  reseal           seal plain-text secrets and re-seal every secret under the first key (what start-up does);
                   exit 1 if a secret cannot be opened with the configured keys`;

/**
 * Operator commands for the signing-secret keys (docs/decisions/0014). Reads the same environment as the service
 * (DB_URL, WEBHOOK_SECRETS_KEYS, …) and prints counts, never a secret or a key, except `new-key`'s fresh one.
 */
export async function secretsCli(argv: string[]): Promise<number> {
  const [command, arg] = argv;
  if (command === 'new-key') {
    console.log(newKeyEntry(arg));
    return 0;
  }
  if (command !== 'status' && command !== 'reseal') {
    console.error(USAGE);
    return 2;
  }
  const config = ingressConfig(withoutBus(process.env));
  const { keyring, source } = loadKeyring(config);
  const dataSource = await openDataSource({ ...ingressData, url: config.DB_URL }, { migrate: false });
  try {
    console.log(`keys (${source}): ${keyring.keyIds.join(', ')}; active: ${keyring.activeKeyId}`);
    if (command === 'reseal') {
      const report = await resealSigningSecrets(dataSource, keyring);
      console.log(
        `sealed ${report.sealed} plain-text secrets, re-sealed ${report.rewrapped} under ${keyring.activeKeyId}`,
      );
      for (const { connectionId, error } of report.unreadable) console.error(`connection ${connectionId}: ${error}`);
      if (report.unreadable.length) return 1;
    }
    const counts = await signingSecretsByKey(dataSource);
    console.log(
      Object.entries(counts)
        .map(([id, n]) => `${id}: ${n}`)
        .join('\n') || 'no provider signing secrets',
    );
    return Object.keys(counts).every((id) => id === keyring.activeKeyId) ? 0 : 1;
  } finally {
    await dataSource.destroy();
  }
}

if (require.main === module)
  secretsCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
