import { buildASTSchema, parse, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import type { GrpcCallPolicy } from '@svc/kit';
import type { Authenticator } from './auth/authenticator';
import type { GatewayContext } from './context';
import { responseFieldMask } from './response-field-mask';
import { RouteCalls } from './route-calls';
import { ROUTES, type Route } from './routes';

type Json = Record<string, unknown>;

export interface Resolvers {
  resolvers: Record<string, Record<string, unknown>>;
  /** Closes the gRPC clients of the routes. */
  close(): void;
}

/**
 * Generates the public root resolvers from the route table: each calls its service's gRPC method with the generated
 * ts-proto client (mesh/src/route-calls.ts), with the principal metadata and the call policy. The composed (raw)
 * supergraph is what each route is checked against; ts-proto's messages are camelCase like the public schema, so the
 * service's answer is the public result (or what the route's `response` makes of it), and the selection's fields are
 * the message's: the call carries them as its response field mask (docs/decisions/0290).
 */
export function buildResolvers(
  rawSupergraph: string,
  publicSchema: GraphQLSchema,
  authenticator: Authenticator,
  services: Record<string, string>,
  callPolicy?: GrpcCallPolicy,
): Resolvers {
  const raw: GraphQLSchema = buildASTSchema(parse(rawSupergraph), { assumeValid: true, assumeValidSDL: true });
  const calls = new RouteCalls(raw, services, callPolicy);
  const resolvers: Record<string, Record<string, unknown>> = { Query: {}, Mutation: {} };
  for (const [publicField, route] of Object.entries(ROUTES)) {
    const publicRoot = publicSchema.getQueryType()?.getFields()[publicField]
      ? 'Query'
      : publicSchema.getMutationType()?.getFields()[publicField]
        ? 'Mutation'
        : undefined;
    if (!publicRoot) throw new Error(`route ${publicField} is not a root field of the public schema`);
    const call = calls.of(route);
    resolvers[publicRoot] = {
      ...resolvers[publicRoot],
      [publicField]: async (_root: unknown, args: Json, context: GatewayContext, info: GraphQLResolveInfo) => {
        // A `response` mapping reshapes the message, so the selection's paths are not the message's: no mask then.
        const fieldMask = route.response ? undefined : responseFieldMask(info.fieldNodes, info.fragments);
        const result = await call(route.request ? await route.request(args) : args, context, fieldMask);
        applyEffect(route, args, context, authenticator);
        return route.response ? route.response(result) : result;
      },
    };
  }
  return { resolvers, close: () => calls.close() };
}

function applyEffect(route: Route, args: Json, context: GatewayContext, authenticator: Authenticator): void {
  if (route.effect === 'evict-key' && typeof args.keyId === 'string') authenticator.evict(args.keyId);
  if (route.effect === 'evict-session' && context.principal?.sessionId)
    authenticator.evict(context.principal.sessionId);
  if (route.effect === 'evict-org' && typeof args.id === 'string') authenticator.evictOrg(args.id);
}
