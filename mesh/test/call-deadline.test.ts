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
  visitorContactId: '',
  visitorChannelId: '',
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

/** A gateway in front of `services` (app name → address), its bus, and its endpoint's URL. */
async function gatewayOn(services: Record<string, string>) {
  const logger = createLogger('gateway-test', 'silent');
  const bus: EventBus = createBus(
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
  const gateway: Gateway = await createGateway({
    services,
    signer: testSigner('gateway'),
    bus,
    logger,
    callPolicy: { deadlineMs: 200, retryAttempts: 1, uploadDeadlineMs: 200 },
  });
  const route = gateway.route();
  const http: HttpServer = createServer((req, res) => void route.handle(req, res, [])).listen(0, '127.0.0.1');
  await new Promise((resolve) => http.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`,
    stop: async () => {
      await new Promise((resolve) => http.close(resolve));
      await gateway.stop();
      await bus.stop();
    },
  };
}

async function firstError(url: string, query: string): Promise<{ message: string; code?: string; body: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer any-key' },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
  const [error] = body.errors ?? [];
  return { message: error?.message ?? '', code: error?.extensions?.code, body: JSON.stringify(body) };
}

describe('gateway: a service past its deadline or unreachable', function () {
  this.timeout(60_000);
  let services: Awaited<ReturnType<typeof servicesThatNeverAnswer>>;
  let silent: Awaited<ReturnType<typeof gatewayOn>>;
  let unreachable: Awaited<ReturnType<typeof gatewayOn>>;

  before(async () => {
    services = await servicesThatNeverAnswer();
    const everyService = Object.fromEntries(SUBGRAPHS.map(({ app }) => [app, services.address]));
    silent = await gatewayOn(everyService);
    // Port 1 on loopback: nothing listens, so the call fails to connect (UNAVAILABLE) and its details name the address.
    unreachable = await gatewayOn({ ...everyService, inbox: '127.0.0.1:1' });
  });

  after(async () => {
    await silent.stop();
    await unreachable.stop();
    services.stop();
  });

  it('answers DEADLINE_EXCEEDED, with a message saying the outcome is unknown and nothing internal', async () => {
    const error = await firstError(silent.url, '{ labels { hasNext } }');
    expect(error.code, error.body).to.equal('DEADLINE_EXCEEDED');
    expect(error.message)
      .to.match(/did not answer in time/)
      .and.not.match(/127\.0\.0\.1|remote_addr/);
  });

  it('answers UNAVAILABLE for a service it cannot reach, without the address or the transport error', async () => {
    const error = await firstError(unreachable.url, '{ labels { hasNext } }');
    expect(error.code, error.body).to.equal('UNAVAILABLE');
    expect(error.message)
      .to.match(/unavailable/i)
      .and.not.match(/127\.0\.0\.1|ECONNREFUSED|connect/);
  });
});
