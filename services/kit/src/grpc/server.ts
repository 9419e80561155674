import {
  Metadata,
  Server,
  ServerCredentials,
  status as GrpcStatus,
  type ServiceDefinition,
  type ServiceError,
  type UntypedServiceImplementation,
  type sendUnaryData,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from 'pino';
import { WITHOUT_CHANNELZ } from './call-policy';
import { DomainError, Forbidden, grpcStatusOf, Unauthenticated } from '../errors';
import { grpcServerDuration } from '../metrics';
import { PrincipalKind, type Principal } from '../principal';
import type { PrincipalVerifier } from '../trust/verifier';
import { REQUEST_ID_HEADER, runWithRequestId } from '../tracing/request-id';
import { ResponseFields } from './response-fields';

export interface CallContext {
  principal: Principal;
  metadata: Metadata;
  logger: Logger;
  /** The response fields the caller reads (its field mask; every field without one). */
  fields: ResponseFields;
}

type RequestOf<M> = M extends { requestDeserialize: (bytes: Buffer) => infer R } ? R : never;
type ResponseOf<M> = M extends { responseSerialize: (value: infer R) => Buffer } ? R : never;

/** Handlers for every RPC of a ts-proto `*Service` definition, as async functions of (request, context). */
export type ServiceHandlers<D extends ServiceDefinition> = {
  [K in keyof D]: (request: RequestOf<D[K]>, context: CallContext) => Promise<ResponseOf<D[K]>>;
};

export interface ImplementDeps {
  verifier: PrincipalVerifier;
  logger: Logger;
  /** Methods an ANONYMOUS principal may call (identity: `login`); every other one answers it UNAUTHENTICATED. */
  anonymous?: readonly string[];
  /**
   * Methods a VISITOR principal may call (the inbox's visitor side, docs/decisions/0081); every other one answers it
   * PERMISSION_DENIED before its handler runs. The handler still checks which chat the visitor reaches.
   */
  visitor?: readonly string[];
}

/**
 * Adapts async handlers to grpc-js: verifies the principal token on every call, maps typed domain errors to gRPC
 * status codes (unclassified errors become INTERNAL with a generic message and are logged), and times each call.
 */
export function implement<D extends ServiceDefinition>(
  serviceName: string,
  definition: D,
  handlers: ServiceHandlers<D>,
  deps: ImplementDeps,
): UntypedServiceImplementation {
  const implementation: UntypedServiceImplementation = {};
  for (const method of Object.keys(definition) as (keyof D & string)[]) {
    const handler = handlers[method];
    implementation[method] = (
      call: ServerUnaryCall<RequestOf<D[typeof method]>, unknown>,
      callback: sendUnaryData<unknown>,
    ) => {
      const started = process.hrtime.bigint();
      const finish = (code: GrpcStatus) =>
        grpcServerDuration.observe(
          { service: serviceName, method, code: GrpcStatus[code] ?? String(code) },
          Number(process.hrtime.bigint() - started) / 1e9,
        );
      void principalOf(call.metadata, method, deps).then(
        (principal) => {
          const logger = deps.logger.child({ rpc: method, orgId: principal.orgId || undefined });
          // A handler that throws before returning its promise (input checked while building the domain call) is
          // answered like one that rejects, with the error's own status.
          // Under the caller's x-request-id: the handler's log lines, events and calls carry it.
          const [requestId] = call.metadata.get(REQUEST_ID_HEADER);
          new Promise<unknown>((resolve) =>
            runWithRequestId(typeof requestId === 'string' ? requestId : undefined, () => {
              requireOpenToVisitor(principal, method, deps);
              const fields = ResponseFields.fromMetadata(call.metadata);
              resolve(handler(call.request, { principal, metadata: call.metadata, logger, fields }));
            }),
          ).then(
            (response) => {
              finish(GrpcStatus.OK);
              callback(null, response);
            },
            (error: unknown) => {
              const status = toServiceError(error, logger);
              finish(status.code);
              callback(status);
            },
          );
        },
        (error: unknown) => {
          finish(GrpcStatus.UNAUTHENTICATED);
          callback({ code: GrpcStatus.UNAUTHENTICATED, details: (error as Error).message } as ServiceError);
        },
      );
    };
  }
  return implementation;
}

/** The verified principal of a call; ANONYMOUS only for the methods open to it. */
async function principalOf(metadata: Metadata, method: string, deps: ImplementDeps): Promise<Principal> {
  const principal = await deps.verifier.fromMetadata(metadata);
  if (principal.kind === PrincipalKind.ANONYMOUS && !deps.anonymous?.includes(method)) {
    throw new Unauthenticated('a caller without credentials may only log in');
  }
  return principal;
}

function requireOpenToVisitor(principal: Principal, method: string, deps: ImplementDeps): void {
  if (principal.kind === PrincipalKind.VISITOR && !deps.visitor?.includes(method))
    throw new Forbidden('a visitor session may not call this');
}

function toServiceError(error: unknown, logger: Logger): Partial<ServiceError> & { code: GrpcStatus } {
  if (error instanceof DomainError) {
    const metadata = new Metadata();
    metadata.set('x-svc-error-code', error.code);
    for (const [key, value] of Object.entries(error.details)) metadata.set(`x-svc-error-${key.toLowerCase()}`, value);
    return { code: grpcStatusOf(error.code), details: error.message, metadata };
  }
  logger.error({ err: error }, 'unhandled error in rpc');
  return { code: GrpcStatus.INTERNAL, details: 'internal error' };
}

/** A grpc-js server that always serves the standard `grpc.health.v1.Health` service. */
export class GrpcServer {
  readonly server: Server;
  readonly health = new HealthImplementation({ '': 'NOT_SERVING' });
  private boundPort = 0;

  /** `maxReceiveBytes`: the largest request message accepted (8 MiB unless a service takes uploads). */
  constructor(maxReceiveBytes = 8 * 1024 * 1024) {
    this.server = new Server({ 'grpc.max_receive_message_length': maxReceiveBytes, ...WITHOUT_CHANNELZ });
    this.health.addToServer(this.server);
  }

  add(definition: ServiceDefinition, implementation: UntypedServiceImplementation, healthName?: string): void {
    this.server.addService(definition, implementation);
    if (healthName) this.health.setStatus(healthName, 'NOT_SERVING');
  }

  async listen(host: string, port: number): Promise<number> {
    this.boundPort = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    return this.boundPort;
  }

  get port(): number {
    return this.boundPort;
  }

  setServing(serving: boolean, names: string[] = ['']): void {
    for (const name of names) this.health.setStatus(name, serving ? 'SERVING' : 'NOT_SERVING');
  }

  /** Stops accepting calls and waits for in-flight ones, forcing after `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    this.setServing(false);
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      force.unref();
      this.server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
  }
}
