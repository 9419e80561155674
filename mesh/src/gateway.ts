import { hostname } from 'node:os';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { print } from 'graphql';
import { createFetch } from '@whatwg-node/fetch';
import {
  REQUEST_ID_HEADER,
  acceptRequestId,
  type EventBus,
  type GrpcCallPolicy,
  type Logger,
  type PrincipalSigner,
  type RawRoute,
  type ReadinessCheck,
} from '@svc/kit';
import { SignedPrincipals } from './auth/signed-principals';
import { Authenticator } from './auth/authenticator';
import { loadOperationsTable } from './auth/operations-table';
import { composeSupergraph } from './compose';
import { EXPLORER_OPTIONS } from './explorer';
import { SUBGRAPHS } from './subgraphs';
import { useAuth } from './plugins/auth-plugin';
import { costBudget, useCostBudget } from './plugins/cost-budget-plugin';
import { useErrorCodes } from './plugins/error-plugin';
import { allowMultipartUploads, multipartRequestLimit } from './plugins/multipart-body-limit';
import { usePiiMasking } from './plugins/pii-plugin';
import { openTelemetryPlugins } from './plugins/opentelemetry';
import { DEFAULT_REQUEST_LIMITS, useRequestLimits, type RequestLimits } from './plugins/request-limits';
import { publicExecutableSchema, usePublicExecution } from './public-execution';
import { buildResolvers } from './resolvers';
import { piiFields, publicDocument, publicSchema } from './schema';

export interface GatewayOptions {
  /** host:port of each deployable's gRPC server, by app name (the `app` of mesh/src/subgraphs.ts). */
  services: Record<string, string>;
  /** Signs the principal tokens sent to the services, as issuer `gateway` (docs/decisions/0065). */
  signer: PrincipalSigner;
  bus: EventBus;
  topicPrefix?: string;
  logger: Logger;
  introspection?: boolean;
  graphqlEndpoint?: string;
  authCacheTtlMs?: number;
  /** Multipart uploads (createMedia, uploadMultipleMedia): bytes per file and files per request. */
  uploads?: UploadLimits;
  /** Bytes of a non-multipart body and tokens of a document (docs/decisions/0048-gateway-request-limits.md). */
  limits?: RequestLimits;
  /** GraphiQL for browsers at the GraphQL endpoint (mesh/src/explorer.ts); off unless asked for. */
  explorer?: boolean;
  /** Proxies in front of the gateway whose X-Forwarded-For entries name the client (0: none, the header is ignored). */
  trustedProxyHops?: number;
  /** The per-key budget of expensive reads (docs/decisions/0033-gateway-cost-budget.md); default 600, 10 per second. */
  costBudget?: { capacity: number; refillPerSecond: number };
  /** Deadlines and retries of the calls to the services (kit `callPolicyOf(config)`); default 10 s, 3 attempts. */
  callPolicy?: GrpcCallPolicy;
}

export interface UploadLimits {
  maxBytes: number;
  maxFiles: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { maxBytes: 16 * 1024 * 1024, maxFiles: 10 };

export interface Gateway {
  /**
   * The GraphQL endpoint as a kit `RawRoute` (every method; Yoga answers each itself), served on node:http ahead of
   * Koa: Koa's context and router added CPU to every GraphQL request and nothing to its answer.
   */
  route(): RawRoute;
  readinessChecks(): Record<string, ReadinessCheck>;
  stop(): Promise<void>;
}

/**
 * The public GraphQL endpoint: Mesh-composed gRPC subgraphs served by Hive Gateway, the hand-written public schema
 * with generated resolvers (executed on that schema: mesh/src/public-execution.ts), and the auth, scope, PII and error
 * plugins.
 */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const graphqlEndpoint = options.graphqlEndpoint ?? '/graphql';
  await options.signer.ready();
  const identity = options.services.identity;
  if (!identity) throw new Error('no gRPC endpoint configured for the identity service');
  const authenticator = new Authenticator(identity, options.signer, options.logger, {
    ttlMs: options.authCacheTtlMs,
    callPolicy: options.callPolicy,
  });
  await authenticator.start(options.bus, options.topicPrefix ?? '', `${hostname()}-${process.pid}`);
  const supergraph = await composeSupergraph(
    SUBGRAPHS.map(({ name, app, proto }) => {
      const endpoint = options.services[app];
      if (!endpoint) throw new Error(`no gRPC endpoint configured for the ${app} service`);
      return { name, proto, endpoint };
    }),
    { callPolicy: options.callPolicy },
  );
  const document = publicDocument();
  const table = loadOperationsTable();
  const uploads = options.uploads ?? DEFAULT_UPLOAD_LIMITS;
  const schema = publicSchema(document);
  const routes = buildResolvers(supergraph.raw, schema, authenticator, options.services, options.callPolicy);
  const runtime = createGatewayRuntime({
    supergraph: supergraph.hidden,
    additionalTypeDefs: print(document),
    additionalResolvers: routes.resolvers,
    transports: { grpc: import('@graphql-mesh/transport-grpc') },
    // GraphQL multipart requests (createMedia, uploadMultipleMedia); Hive Gateway has them off by default.
    multipart: true,
    // Multipart parsing stops at the limits (413 REQUEST_ENTITY_TOO_LARGE) instead of buffering any size; the inbox
    // checks again, as it trusts no caller.
    fetchAPI: createFetch({ formDataLimits: uploadFormLimits(uploads) }),
    graphqlEndpoint,
    logging: false,
    landingPage: false,
    graphiql: options.explorer ? EXPLORER_OPTIONS : false,
    maskedErrors: false,
    // Hive Gateway's request-id plugin stays off (it costs a child logger per call: docs/performance.md); `handleNode`
    // accepts or generates the x-request-id itself and the gRPC metadata carries it to the services.
    requestId: false,
    plugins: () => [
      ...openTelemetryPlugins(),
      usePublicExecution(publicExecutableSchema(schema, routes)),
      useRequestLimits(options.limits ?? DEFAULT_REQUEST_LIMITS, graphqlEndpoint),
      useAuth({
        authenticator,
        signedPrincipals: new SignedPrincipals(options.signer),
        table,
        introspection: options.introspection ?? true,
        logger: options.logger,
        graphqlEndpoint,
        trustedProxyHops: options.trustedProxyHops ?? 0,
        explorer: options.explorer ?? false,
      }),
      useCostBudget(costBudget(options.costBudget)),
      usePiiMasking(piiFields(document)),
      blockFieldSuggestionsPlugin(),
      maxDepthPlugin({ n: 12 }),
      // graphql-armor leaves introspection out of the limit above; the standard introspection query is 21 deep.
      maxDepthPlugin({ n: 24, ignoreIntrospection: false }),
      useErrorCodes(options.logger),
    ],
  });
  allowMultipartUploads(runtime, multipartRequestLimit(uploads));
  return {
    route: () => ({
      method: '*',
      path: new RegExp(`^${escapeRegExp(graphqlEndpoint)}$`),
      handle: async (req, res) => {
        // The caller's x-request-id, or a new one: answered, seen by the plugins in the request's headers, and sent to
        // the services in gRPC metadata (compose.ts) from the GraphQL context (docs/decisions/0069).
        const requestId = acceptRequestId(req.headers[REQUEST_ID_HEADER]);
        req.headers[REQUEST_ID_HEADER] = requestId;
        res.setHeader(REQUEST_ID_HEADER, requestId);
        await runtime.handle(req, res, { requestId });
      },
    }),
    readinessChecks: () => ({ 'gateway.schema': async () => (await runtime.getSchema()) !== undefined }),
    stop: async () => {
      await runtime.dispose();
      routes.close();
      await authenticator.stop();
    },
  };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function uploadFormLimits(limits: UploadLimits) {
  return { fileSize: limits.maxBytes, files: limits.maxFiles, fields: 16, fieldSize: 1024 * 1024 };
}
