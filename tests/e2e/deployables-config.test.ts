import { expect } from 'chai';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { testTrustKeys } from '@svc/kit';

const ROOT = path.resolve(__dirname, '../../..');

/** Every deployable's entry point: each service but the embedded stack, and the gateway. */
const DEPLOYABLES = [
  ...fs
    .readdirSync(path.join(ROOT, 'services'))
    .filter((service) => service !== 'stack')
    .map((service) => path.join(ROOT, 'services', service, 'dist/src/main.js'))
    .filter((main) => fs.existsSync(main)),
  path.join(ROOT, 'mesh/dist/src/main.js'),
];

/** Everything a deployable needs but the bus: the only problems left are the ones a test adds. */
const ENV = {
  PATH: process.env.PATH ?? '',
  DB_URL: 'sqlite::memory:',
  SVC_TRUST_JWKS: testTrustKeys().jwks,
  MEDIA_URL_SECRET: 'm'.repeat(32),
  LOG_LEVEL: 'silent',
  GRPC_PORT: '0',
  HTTP_PORT: '0',
  PORT: '0',
  ...Object.fromEntries(
    ['IDENTITY', 'INBOX', 'CONTACTS', 'FLOWS', 'WEBHOOK_INGRESS', 'CHANNELS'].map((app) => [
      `${app}_GRPC_URL`,
      '127.0.0.1:1',
    ]),
  ),
};

/** The gateway's config requires its signing key; a service checks its own only once it starts serving. */
function withGatewayKey(main: string, env: Record<string, string>): Record<string, string> {
  if (!main.startsWith(path.join(ROOT, 'mesh'))) return env;
  return { ...env, SVC_SIGNING_KEY: JSON.stringify(testTrustKeys().signing.gateway) };
}

/** Runs a deployable and returns the variables its start-up error names; fails when it does not exit by itself. */
function refusedVariables(main: string, env: Record<string, string>): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [main],
      { env: withGatewayKey(main, env), timeout: 20_000 },
      (error, _stdout, stderr) => {
        if (!error) return reject(new Error(`${main} exited 0`));
        if (error.killed) return reject(new Error(`${main} did not refuse to start (still running after 20 s)`));
        if (!stderr.includes('ConfigError')) return reject(new Error(`${main} failed otherwise:\n${stderr}`));
        resolve([...stderr.matchAll(/^ {2}(\w+):/gm)].map((match) => match[1] as string).sort());
      },
    );
  });
}

describe('Deployables refuse unsafe configuration (each main.js as its own process)', function () {
  this.timeout(60_000);

  it('finds every deployable', () => {
    expect(DEPLOYABLES.map((main) => path.relative(ROOT, main))).to.include.members([
      'services/identity/dist/src/main.js',
      'services/inbox/dist/src/main.js',
      'services/webhook-ingress/dist/src/main.js',
      'mesh/dist/src/main.js',
    ]);
  });

  it('each refuses to start without KAFKA_BROKERS, naming it (the in-process bus is the embedded stack’s)', async () => {
    const named = await Promise.all(DEPLOYABLES.map((main) => refusedVariables(main, ENV)));
    expect(named).to.deep.equal(DEPLOYABLES.map(() => ['KAFKA_BROKERS']));
  });

  it('each service migrates (`main.js migrate`, the migration Job) without KAFKA_BROKERS: it opens no bus', async () => {
    const services = DEPLOYABLES.filter((main) => main.includes(`${path.sep}services${path.sep}`));
    const exits = await Promise.all(
      services.map(
        (main) =>
          new Promise<string>((resolve) =>
            execFile(process.execPath, [main, 'migrate'], { env: ENV, timeout: 20_000 }, (error, _out, stderr) =>
              resolve(error ? `${path.relative(ROOT, main)}: ${stderr.slice(0, 300)}` : 'ok'),
            ),
          ),
      ),
    );
    expect(exits).to.deep.equal(services.map(() => 'ok'));
  });

  it('each refuses an incomplete SASL setting, naming what is missing', async () => {
    const env = {
      ...ENV,
      KAFKA_BROKERS: '127.0.0.1:1',
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'svc',
    };
    const named = await Promise.all(DEPLOYABLES.map((main) => refusedVariables(main, env)));
    expect(named).to.deep.equal(DEPLOYABLES.map(() => ['KAFKA_SASL_PASSWORD']));
  });
});
