import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import {
  ApiScope,
  apiKeyPrincipal,
  callerMetadata,
  dropTestDatabase,
  grpcClient,
  newId,
  newKeyEntry,
  parseKeys,
  runSecretsCli,
  testDbUrl,
  testEnv,
  type ConfigSource,
  unary,
} from '@svc/kit';
import { ChannelsServiceClient } from '@svc/proto/channels/v1';
import { ChannelsApp, channelsConfig } from '../src';
import { sealedSecretsStore } from '../src/cli/secrets';

describe('channels secrets CLI (status, reseal, new-key)', () => {
  const [a, b, lost] = [newKeyEntry('a'), newKeyEntry('b'), newKeyEntry('lost')];
  const orgId = newId();
  let dir: string;
  let env: ConfigSource;
  const integrationIds: string[] = [];

  /** Runs `secrets <argv>` with these keys; its exit code and what it printed. */
  async function cli(argv: string[], keys = a) {
    const lines: string[] = [];
    const errors: string[] = [];
    const code = await runSecretsCli(
      argv,
      sealedSecretsStore,
      { ...env, CHANNELS_SECRETS_KEYS: keys },
      {
        log: (line) => lines.push(line),
        error: (line) => errors.push(line),
      },
    );
    return { code, out: lines.join('\n'), err: errors.join('\n') };
  }

  before(async function () {
    this.timeout(30_000);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-channels-cli-'));
    env = testEnv('channels_cli', { DB_URL: testDbUrl('channels_cli', path.join(dir, 'channels.sqlite')) });
    const app = new ChannelsApp(channelsConfig({ ...env, CHANNELS_SECRETS_KEYS: a }));
    await app.start();
    const client = grpcClient(ChannelsServiceClient, `127.0.0.1:${app.grpcPort}`);
    try {
      const metadata = await callerMetadata(apiKeyPrincipal(orgId, [ApiScope.CHANNELS_MANAGE]), 'channels');
      for (const name of ['One', 'Two']) {
        const created = await unary(client.createWebIntegration.bind(client), { input: { name } }, metadata);
        integrationIds.push(created.integration?.id ?? '');
      }
    } finally {
      client.close();
      await app.stop();
    }
  });

  after(async () => {
    await dropTestDatabase(String(env.DB_URL));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('status counts the identity secrets per key id, exit 0 only when all are under the first key', async () => {
    const current = await cli(['status']);
    expect(current.code).to.equal(0);
    expect(current.out).to.include('active: a').and.include('a: 2');
    const rotated = await cli(['status'], `${b},${a}`);
    expect(rotated.code).to.equal(1);
    expect(rotated.out).to.include('active: b').and.include('a: 2');
    // Counts and key ids only: never key material.
    expect(rotated.out).not.to.include(parseKeys(b)[0]?.key.toString('base64') ?? '-');
  });

  it('reseal names the integrations no configured key opens and leaves them, exit 1', async () => {
    const refused = await cli(['reseal'], lost);
    expect(refused.code).to.equal(1);
    for (const id of integrationIds) expect(refused.err).to.include(`web integration ${id}`);
    expect((await cli(['status'])).out).to.include('a: 2');
  });

  it('reseal moves every identity secret to the new first key without a restart; the old key can then go', async () => {
    const resealed = await cli(['reseal'], `${b},${a}`);
    expect(resealed.code, resealed.err).to.equal(0);
    expect(resealed.out).to.include('re-sealed 2 sealed secrets under b').and.include('b: 2');
    const onlyB = await cli(['status'], b);
    expect(onlyB.code).to.equal(0);
    expect(onlyB.out).to.include('b: 2').and.not.include('a: ');
    expect((await cli(['reseal'], b)).out).to.include('re-sealed 0 sealed secrets');
  });

  it('new-key prints a fresh entry for CHANNELS_SECRETS_KEYS; anything else prints the usage, exit 2', async () => {
    const fresh = await cli(['new-key', 'k2']);
    expect(fresh.code).to.equal(0);
    expect(parseKeys(fresh.out)[0]?.id).to.equal('k2');
    const unknown = await cli(['rotate']);
    expect(unknown.code).to.equal(2);
    expect(unknown.err).to.include('CHANNELS_SECRETS_KEYS');
  });
});
