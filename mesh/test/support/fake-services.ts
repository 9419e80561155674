import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type UntypedHandleCall,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
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
  type GrpcCallPolicy,
  type Principal,
} from '@svc/kit';
import { IdentityServiceService } from '@svc/proto/identity/v1';
import { createGateway } from '../../src/gateway';

export const PRINCIPAL: Principal = {
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

/**
 * A gRPC server that serves every service: identity authenticates any key as PRINCIPAL, the methods in `answering`
 * (by service definition, then method name) do what they say, every other method never answers.
 */
export async function fakeServices(
  answering = new Map<ServiceDefinition, Record<string, UntypedHandleCall>>(),
): Promise<{ address: string; stop(): void }> {
  const server = new Server();
  const authenticate = (_call: unknown, callback: (e: null, p: Principal) => void) => callback(null, PRINCIPAL);
  for (const definition of SERVICE_DEFINITIONS) {
    const silent = Object.fromEntries(Object.keys(definition).map((method) => [method, () => undefined]));
    const identity = definition === IdentityServiceService ? { authenticate } : {};
    const implementation = { ...silent, ...identity, ...answering.get(definition) };
    server.addService(definition, implementation as UntypedServiceImplementation);
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { address: `127.0.0.1:${port}`, stop: () => server.forceShutdown() };
}

/** A gateway in front of `services` (app name → address) with `callPolicy`, and its endpoint's URL. */
export async function gatewayOn(services: Record<string, string>, callPolicy: GrpcCallPolicy) {
  const logger = createLogger('gateway-test', 'silent');
  const bus: EventBus = createBus(
    {
      KAFKA_BROKERS: IN_PROCESS_BUS,
      KAFKA_CLIENT_ID: 'test',
      KAFKA_SSL: false,
      KAFKA_TOPIC_PREFIX: '',
      KAFKA_SESSION_TIMEOUT_MS: 30_000,
      EMBEDDED_BUS_FILE: ':memory:',
      BUS_RETRY_ATTEMPTS: 1,
      BUS_RETRY_BACKOFF_MS: 0,
    },
    logger,
  );
  await bus.start();
  const gateway = await createGateway({ services, signer: testSigner('gateway'), bus, logger, callPolicy });
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

export interface GraphQLAnswer {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** Posts `query` with a key (any key: the fake identity accepts it) and `headers`. */
export async function post(url: string, query: string, headers: Record<string, string> = {}): Promise<GraphQLAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer any-key', ...headers },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as GraphQLAnswer;
}
