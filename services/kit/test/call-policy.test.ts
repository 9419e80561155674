import { expect } from 'chai';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  Metadata,
  Server,
  ServerCredentials,
  status,
  type sendUnaryData,
  type ServerUnaryCall,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { IdentityServiceClient, IdentityServiceService } from '@svc/proto/identity/v1';
import {
  DEFAULT_CALL_POLICY,
  IDEMPOTENT_METHODS,
  SERVICE_DEFINITIONS,
  grpcClient,
  rejection,
  unary,
  type GrpcCallPolicy,
} from '../src';

type Handler = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;

/** A bare grpc-js identity server whose FindMembers and Login run `handler`, counting the attempts it receives. */
async function identityAnswering(handler: Handler) {
  const attempts = { findMembers: 0, login: 0 };
  const server = new Server();
  const counted =
    (method: keyof typeof attempts): Handler =>
    (call, callback) => {
      attempts[method] += 1;
      handler(call, callback);
    };
  server.addService(IdentityServiceService, {
    findMembers: counted('findMembers'),
    login: counted('login'),
  } as UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { address: `127.0.0.1:${port}`, attempts, stop: () => server.forceShutdown() };
}

/** UNAVAILABLE for the first attempt of each method, then an answer. */
function unavailableOnce(): Handler {
  const seen = new Set<string>();
  return (call, callback) => {
    const method = (call as unknown as { getPath(): string }).getPath();
    if (seen.has(method)) return callback(null, { memberIds: [] });
    seen.add(method);
    callback({ code: status.UNAVAILABLE, details: 'not now' });
  };
}

describe('kit gRPC call policy: deadlines and retries between services', () => {
  const policy: GrpcCallPolicy = { ...DEFAULT_CALL_POLICY, retryAttempts: 3 };
  const stops: (() => void)[] = [];
  afterEach(() => stops.splice(0).forEach((stop) => stop()));

  it('retries an idempotent call answered UNAVAILABLE: the second attempt answers', async () => {
    const identity = await identityAnswering(unavailableOnce());
    stops.push(identity.stop);
    const client = grpcClient(IdentityServiceClient, identity.address, policy);
    stops.push(() => client.close());
    const found = await unary(client.findMembers.bind(client), { memberIds: ['m1'] }, new Metadata());
    expect(found.memberIds).to.deep.equal([]);
    expect(identity.attempts.findMembers).to.equal(2);
  });

  it('never repeats a write answered UNAVAILABLE (it may have run): one attempt, UNAVAILABLE to the caller', async () => {
    const identity = await identityAnswering(unavailableOnce());
    stops.push(identity.stop);
    const client = grpcClient(IdentityServiceClient, identity.address, policy);
    stops.push(() => client.close());
    const error = await rejection(
      unary(client.login.bind(client), { email: 'a@example.com', password: 'x' }, new Metadata()),
    );
    expect(error.code).to.equal(status.UNAVAILABLE);
    expect(identity.attempts.login).to.equal(1);
  });

  it('ends a call nobody answers with DEADLINE_EXCEEDED at the configured deadline', async () => {
    const identity = await identityAnswering(() => undefined);
    stops.push(identity.stop);
    const client = grpcClient(IdentityServiceClient, identity.address, { ...policy, deadlineMs: 300 });
    stops.push(() => client.close());
    await new Promise<void>((resolve, reject) =>
      client.waitForReady(Date.now() + 10_000, (error) => (error ? reject(error) : resolve())),
    );
    const error = await rejection(unary(client.findMembers.bind(client), { memberIds: [] }, new Metadata()));
    expect(error.code).to.equal(status.DEADLINE_EXCEEDED);
    // The call reached the server: the deadline ran its course rather than expiring before the call was sent.
    expect(identity.attempts.findMembers).to.equal(1);
  });

  it('retries the reads and the idempotent lookups, never a write', () => {
    const retried = new Set(IDEMPOTENT_METHODS);
    for (const read of [
      '/svc.inbox.v1.InboxService/GetChat',
      '/svc.inbox.v1.LabelService/FindLabels',
      '/svc.identity.v1.IdentityService/Authenticate',
      '/svc.contacts.v1.ContactsService/LookupContact',
      '/svc.contacts.v1.ContactsService/IsChatAppAIdEditable',
      '/svc.inbox.v1.SearchService/SearchMessages',
    ])
      expect(retried, read).to.include(read);
    for (const write of [
      '/svc.inbox.v1.InboxService/SendMessage',
      '/svc.inbox.v1.InboxService/ReadMessages',
      '/svc.identity.v1.IdentityService/Login',
      '/svc.inbox.v1.MediaService/CreateMedia',
      '/svc.contacts.v1.ContactsService/UpsertContact',
    ])
      expect(retried, write).not.to.include(write);
  });

  it('knows every service of the generated code', () => {
    const generated = path.resolve(__dirname, '../../../../proto/gen');
    const services = new Set(
      fs
        .readdirSync(generated, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
        .flatMap((entry) => [
          ...fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8').matchAll(/path: "\/([\w.]+)\//g),
        ])
        .map((match) => match[1]),
    );
    const known = new Set(
      SERVICE_DEFINITIONS.flatMap((definition) => Object.values(definition)).map((m) => m.path.split('/')[1]),
    );
    expect([...known].sort()).to.deep.equal([...services].sort());
  });
});
