import { expect } from 'chai';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { status, type Metadata } from '@grpc/grpc-js';
import {
  CLIENT_ADDRESS_HEADER,
  dropTestDatabase,
  grpcClient,
  rejection,
  anonymousPrincipal,
  testDbUrl,
  testEnv,
  unary,
  callerMetadata,
} from '@svc/kit';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { IdentityApp, identityConfig } from '../src';

/** Two identity replicas on one database, as behind several gateways: the throttle must hold across them. */
describe('IdentityService.Login throttle (docs/decisions/0049)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-throttle-'));
  const dbUrl = testDbUrl('identity-throttle', path.join(dir, 'identity.sqlite'));
  const env = testEnv('identity', {
    DB_URL: dbUrl,
    LOGIN_FAILURES_PER_EMAIL: '3',
    LOGIN_FAILURES_PER_ADDRESS: '5',
    LOGIN_FAILURE_WINDOW_SECONDS: '900',
  });
  const replicas = [new IdentityApp(identityConfig(env)), new IdentityApp(identityConfig(env))];
  let clients: IdentityServiceClient[];
  let bcryptCalls = 0;

  before(async () => {
    for (const replica of replicas) {
      await replica.start();
      const verify = replica.passwords.verify.bind(replica.passwords);
      replica.passwords.verify = (password, hash) => {
        bcryptCalls += 1;
        return verify(password, hash);
      };
    }
    clients = replicas.map((replica) => grpcClient(IdentityServiceClient, `127.0.0.1:${replica.grpcPort}`));
  });

  after(async () => {
    for (const client of clients) client.close();
    for (const replica of replicas) await replica.stop();
    await dropTestDatabase(dbUrl);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const from = async (address?: string) => {
    const metadata = await callerMetadata(anonymousPrincipal(), 'identity');
    if (address) metadata.set(CLIENT_ADDRESS_HEADER, address);
    return metadata;
  };
  const login = (replica: number, email: string, password: string, metadata: Promise<Metadata>) => {
    const client = clients[replica]!;
    return unary(client.login.bind(client), { email, password }, metadata);
  };
  const owner = async () => {
    const email = `owner-${Math.random().toString(36).slice(2)}@example.com`;
    const created = await replicas[0]!.createOrg({ name: 'Acme', owner: { email, name: 'Olive Owner' } });
    return { email, password: created.oneTimePassword ?? '' };
  };

  it('refuses the attempt after 3 failures for one email, on any replica, without running bcrypt', async () => {
    const { email, password } = await owner();
    for (let i = 0; i < 3; i += 1) {
      const failed = await rejection(login(i % 2, email, 'wrong-password-123', from()));
      expect(failed.code).to.equal(status.UNAUTHENTICATED);
    }
    const before = bcryptCalls;
    for (const replica of [0, 1]) {
      const refused = await rejection(login(replica, email, password, from()));
      expect(refused.code, refused.details).to.equal(status.RESOURCE_EXHAUSTED);
      const retryAfter = Number(refused.metadata.get('x-svc-error-retryafterseconds')[0]);
      expect(retryAfter, 'one failure refills in 900 s / 3').to.be.within(1, 300);
    }
    expect(bcryptCalls, 'refused attempts spend no bcrypt').to.equal(before);
  });

  it('lets exactly 3 of 8 concurrent failures through, across both replicas', async () => {
    const { email } = await owner();
    const codes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => rejection(login(i % 2, email, 'wrong-password-123', from()))),
    );
    const unauthenticated = codes.filter((error) => error.code === status.UNAUTHENTICATED).length;
    const limited = codes.filter((error) => error.code === status.RESOURCE_EXHAUSTED).length;
    expect({ unauthenticated, limited }).to.deep.equal({ unauthenticated: 3, limited: 5 });
  });

  it('counts only failures: right passwords never use up the budget', async () => {
    const { email, password } = await owner();
    for (let i = 0; i < 6; i += 1) expect((await login(i % 2, email, password, from())).token).to.match(/^sess_/);
    await rejection(login(0, email, 'wrong-password-123', from()));
    expect((await login(1, email, password, from())).token).to.match(/^sess_/);
  });

  it('refuses an address after 5 failures whatever the email, and no other address', async () => {
    const { email, password } = await owner();
    for (let i = 0; i < 5; i += 1)
      await rejection(login(i % 2, `nobody-${i}@example.com`, 'wrong-password-123', from('203.0.113.7')));
    const refused = await rejection(login(0, email, password, from('203.0.113.7')));
    expect(refused.code).to.equal(status.RESOURCE_EXHAUSTED);
    expect((await login(1, email.toUpperCase(), password, from('203.0.113.8'))).token, 'another address').to.match(
      /^sess_/,
    );
  });
});
