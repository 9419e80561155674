import { expect } from 'chai';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, ServerCredentials, type UntypedServiceImplementation } from '@grpc/grpc-js';
import {
  ALL_SCOPES,
  IN_PROCESS_BUS,
  MemberRole,
  OrgKind,
  PrincipalKind,
  SERVICE_DEFINITIONS,
  createBus,
  createLogger,
  testSigner,
  type EventBus,
  type Principal,
} from '@svc/kit';
import { IdentityServiceService } from '@svc/proto/identity/v1';
import { createGateway, type Gateway } from '../src/gateway';
import { SUBGRAPHS } from '../src/subgraphs';

const PRINCIPAL: Principal = {
  kind: PrincipalKind.API_KEY,
  orgId: 'org',
  orgKind: OrgKind.STANDARD,
  keyId: 'k1',
  memberId: '',
  role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
  scopes: [...ALL_SCOPES],
  sessionId: '',
};

/** A gRPC server that serves every service: identity authenticates any key, every other method never answers. */
async function servicesThatNeverAnswer(): Promise<{ address: string; stop(): void }> {
  const server = new Server();
  for (const definition of SERVICE_DEFINITIONS) {
    const silent = Object.fromEntries(Object.keys(definition).map((method) => [method, () => undefined]));
    const implementation =
      definition === IdentityServiceService
        ? {
            ...silent,
            authenticate: (_call: unknown, callback: (e: null, p: Principal) => void) => callback(null, PRINCIPAL),
          }
        : silent;
    server.addService(definition, implementation as UntypedServiceImplementation);
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { address: `127.0.0.1:${port}`, stop: () => server.forceShutdown() };
}

describe('gateway: a service past its deadline', function () {
  this.timeout(60_000);
  let services: Awaited<ReturnType<typeof servicesThatNeverAnswer>>;
  let bus: EventBus;
  let gateway: Gateway;
  let http: HttpServer;

  before(async () => {
    services = await servicesThatNeverAnswer();
    const logger = createLogger('gateway-test', 'silent');
    bus = createBus(
      {
        KAFKA_BROKERS: IN_PROCESS_BUS,
        KAFKA_CLIENT_ID: 'test',
        KAFKA_SSL: false,
        KAFKA_TOPIC_PREFIX: '',
        EMBEDDED_BUS_FILE: ':memory:',
        BUS_RETRY_ATTEMPTS: 1,
        BUS_RETRY_BACKOFF_MS: 0,
      },
      logger,
    );
    await bus.start();
    gateway = await createGateway({
      services: Object.fromEntries(SUBGRAPHS.map(({ app }) => [app, services.address])),
      signer: testSigner('gateway'),
      bus,
      logger,
      callPolicy: { deadlineMs: 200, retryAttempts: 1, uploadDeadlineMs: 200 },
    });
    const route = gateway.route();
    http = createServer((req, res) => void route.handle(req, res, [])).listen(0, '127.0.0.1');
    await new Promise((resolve) => http.once('listening', resolve));
  });

  after(async () => {
    await new Promise((resolve) => http.close(resolve));
    await gateway.stop();
    await bus.stop();
    services.stop();
  });

  it('answers DEADLINE_EXCEEDED, with a message saying the outcome is unknown and nothing internal', async () => {
    const response = await fetch(`http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer any-key' },
      body: JSON.stringify({ query: '{ labels { hasNext } }' }),
    });
    const body = (await response.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
    expect(body.errors?.[0]?.extensions?.code, JSON.stringify(body)).to.equal('DEADLINE_EXCEEDED');
    expect(body.errors?.[0]?.message)
      .to.match(/did not answer in time/)
      .and.not.match(/127\.0\.0\.1|remote_addr/);
  });
});
