import { Client, Metadata, status, type CallOptions, type ServiceError } from '@grpc/grpc-js';
import { GraphQLError, getNamedType, type GraphQLField, type GraphQLSchema } from 'graphql';
import {
  CLIENT_ADDRESS_HEADER,
  DEFAULT_CALL_POLICY,
  FIELD_MASK_HEADER,
  PRINCIPAL_HEADER,
  REQUEST_ID_HEADER,
  grpcClient,
  unary,
  type GrpcCallPolicy,
} from '@svc/kit';
import type { GatewayContext } from './context';
import type { Route } from './routes';
import { SUBGRAPHS, rawFieldName, type Subgraph } from './subgraphs';

/** A unary method of a ts-proto grpc-js service definition. */
interface GeneratedMethod {
  path: string;
  requestSerialize(value: unknown): Buffer;
  responseDeserialize(bytes: Buffer): unknown;
}

/** A ts-proto message type: `fromPartial` gives every field its proto3 default, as `encode` expects. */
export interface GeneratedMessage {
  fromPartial(object: unknown): unknown;
}

/**
 * Calls a route's gRPC method with the caller's request and, when given, the response field mask of its selection
 * (mesh/src/response-field-mask.ts); answers the service's message as ts-proto decodes it.
 */
export type RouteCall = (
  request: Record<string, unknown>,
  context: GatewayContext,
  fieldMask?: string,
) => Promise<Record<string, unknown>>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function isGeneratedMethod(value: unknown): value is GeneratedMethod {
  return (
    isObject(value) &&
    typeof value.path === 'string' &&
    typeof value.requestSerialize === 'function' &&
    typeof value.responseDeserialize === 'function'
  );
}

function isGeneratedMessage(value: unknown): value is GeneratedMessage {
  return isObject(value) && typeof value.fromPartial === 'function' && typeof value.encode === 'function';
}

function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as ServiceError).code === 'number' && 'metadata' in error;
}

/** The definition of `/<grpcService>/<method>` in the subgraph's generated module. */
function generatedMethod(subgraph: Subgraph, method: string): GeneratedMethod {
  const path = `/${subgraph.grpcService}/${method}`;
  for (const exported of Object.values(subgraph.generated)) {
    if (!isObject(exported) || typeof exported === 'function') continue;
    for (const candidate of Object.values(exported))
      if (isGeneratedMethod(candidate) && candidate.path === path) return candidate;
  }
  throw new Error(`no generated gRPC method ${path}`);
}

/**
 * The generated type of a message the supergraph names `<package>__<Message>` (Mesh's gRPC loader names a message
 * after its proto package and name: `svc__inbox__v1__ChatIdRequest`, `…_Input` for its input type): looked up in every
 * generated module of that package, as a request may use a message of another file of it.
 */
export function generatedMessage(supergraphTypeName: string): GeneratedMessage {
  const name = supergraphTypeName.replace(/_Input$/, '');
  const separator = name.lastIndexOf('__');
  const protoPackage = name.slice(0, separator).replaceAll('__', '.');
  const message = name.slice(separator + 2);
  const found = new Set<GeneratedMessage>();
  for (const subgraph of SUBGRAPHS) {
    if (!subgraph.grpcService.startsWith(`${protoPackage}.`)) continue;
    const exported: unknown = (subgraph.generated as Record<string, unknown>)[message];
    if (isGeneratedMessage(exported)) found.add(exported);
  }
  const [only, ...others] = found;
  if (!only || others.length) throw new Error(`no single generated message ${protoPackage}.${message}`);
  return only;
}

/** The raw (hidden) root field a route resolves to in the composed supergraph: what its calls are checked against. */
export function rawRootField(raw: GraphQLSchema, route: Route): GraphQLField<unknown, unknown> {
  const name = rawFieldName(route.service, route.method);
  const found = raw.getQueryType()?.getFields()[name] ?? raw.getMutationType()?.getFields()[name];
  if (!found) throw new Error(`route ${route.service}.${route.method}: the supergraph has no field ${name}`);
  return found;
}

/**
 * Mesh's gRPC transport carried a service error to the gateway as this GraphQL error (`extensions.grpc`); the error
 * plugin maps it to the public code, so a direct call fails the same way.
 */
export function graphQLErrorOf(error: ServiceError): GraphQLError {
  return new GraphQLError(error.message, {
    extensions: {
      code: 'DOWNSTREAM_SERVICE_ERROR',
      grpc: {
        code: error.code,
        status: status[error.code] ?? 'UNKNOWN',
        details: error.details,
        metadata: error.metadata?.getMap(),
      },
    },
  });
}

/**
 * The call's gRPC metadata: the principal token signed for the subgraph's service, the request's client address and
 * id, and the fields the client reads.
 */
function metadataOf(context: GatewayContext, subgraph: string, fieldMask: string | undefined): Metadata {
  const metadata = new Metadata();
  if (fieldMask !== undefined) metadata.set(FIELD_MASK_HEADER, fieldMask);
  const token = context.principalTokens?.[subgraph];
  if (token) metadata.set(PRINCIPAL_HEADER, token);
  if (context.clientAddress) metadata.set(CLIENT_ADDRESS_HEADER, context.clientAddress);
  if (context.requestId) metadata.set(REQUEST_ID_HEADER, context.requestId);
  return metadata;
}

/**
 * The gRPC calls of the route table, made with the ts-proto definitions the services use (docs/decisions/0006): one
 * client per deployable with the call policy's deadlines and retries, the request type and method found once per
 * route, checked against the composed supergraph at start-up.
 */
export class RouteCalls {
  private readonly clients = new Map<string, Client>();

  constructor(
    private readonly raw: GraphQLSchema,
    private readonly services: Record<string, string>,
    private readonly policy: GrpcCallPolicy = DEFAULT_CALL_POLICY,
  ) {}

  of(route: Route): RouteCall {
    const subgraph = SUBGRAPHS.find((s) => s.name === route.service);
    if (!subgraph) throw new Error(`unknown subgraph ${route.service}`);
    const method = generatedMethod(subgraph, route.method);
    const input = rawRootField(this.raw, route).args.find((arg) => arg.name === 'input');
    if (!input) throw new Error(`route ${route.service}.${route.method}: the supergraph field takes no input`);
    const requestType = generatedMessage(getNamedType(input.type).name);
    const client = this.clientOf(subgraph.app);
    const send = (
      request: unknown,
      metadata: Metadata,
      options: Partial<CallOptions>,
      callback: (error: ServiceError | null, response?: unknown) => void,
    ) =>
      client.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        metadata,
        options,
        callback,
      );
    return async (request, context, fieldMask) => {
      try {
        const metadata = metadataOf(context, subgraph.name, fieldMask);
        return (await unary(send, requestType.fromPartial(request), metadata)) as Record<string, unknown>;
      } catch (error) {
        throw isServiceError(error) ? graphQLErrorOf(error) : error;
      }
    };
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }

  private clientOf(app: string): Client {
    let client = this.clients.get(app);
    if (!client) {
      const address = this.services[app];
      if (!address) throw new Error(`no gRPC endpoint configured for the ${app} service`);
      client = grpcClient(Client, address, this.policy);
      this.clients.set(app, client);
    }
    return client;
  }
}
