import { buildASTSchema, parse, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import type { Authenticator } from './auth/authenticator';
import type { GatewayContext } from './context';
import { ROUTES, type Route } from './routes';
import { SelectionCache, delegatedSelection, field, wholeSelection } from './selection';
import { rawFieldName } from './subgraphs';

type Json = Record<string, unknown>;

/**
 * Plain data without nulls: the delegated result carries the delegation's symbols, which would make the public
 * schema's resolvers treat it as a subgraph object (and miss aliased fields); absent and null read the same.
 */
export function plainData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainData);
  if (value && typeof value === 'object' && !(value instanceof Error) && !(value instanceof Uint8Array)) {
    const out: Json = {};
    for (const key of Object.keys(value)) {
      const inner = (value as Json)[key];
      if (inner !== undefined && inner !== null) out[key] = plainData(inner);
    }
    return out;
  }
  return value;
}

type SubgraphCall = (options: {
  root: unknown;
  args: Json;
  context: unknown;
  info: GraphQLResolveInfo;
}) => Promise<unknown>;

/**
 * Generates the public root resolvers from the route table: each delegates to the hidden gRPC root field of its
 * service through Mesh's in-context SDK (so calls go through the gRPC transport with the principal metadata).
 */
export function buildResolvers(
  rawSupergraph: string,
  publicSchema: GraphQLSchema,
  authenticator: Authenticator,
): Record<string, Record<string, unknown>> {
  const raw: GraphQLSchema = buildASTSchema(parse(rawSupergraph), { assumeValid: true, assumeValidSDL: true });
  const publicRootOf = (field: string): 'Query' | 'Mutation' => {
    if (publicSchema.getQueryType()?.getFields()[field]) return 'Query';
    if (publicSchema.getMutationType()?.getFields()[field]) return 'Mutation';
    throw new Error(`route ${field} is not a root field of the public schema`);
  };
  const resolvers: Record<string, Record<string, unknown>> = { Query: {}, Mutation: {} };
  for (const [publicField, route] of Object.entries(ROUTES)) {
    const rawField = rawFieldName(route.service, route.method);
    const rootType = raw.getQueryType()?.getFields()[rawField]
      ? 'Query'
      : raw.getMutationType()?.getFields()[rawField]
        ? 'Mutation'
        : undefined;
    if (!rootType) throw new Error(`route ${publicField}: the supergraph has no field ${rawField}`);
    const rawType = (rootType === 'Query' ? raw.getQueryType() : raw.getMutationType())?.getFields()[rawField]?.type;
    const whole = rawType && wholeSelection(rawType);
    if (!rawType || !whole) throw new Error(`route ${publicField}: ${rawField} does not return a message`);
    const publicRoot = publicRootOf(publicField);
    const publicType = (
      publicRoot === 'Query' ? publicSchema.getQueryType() : publicSchema.getMutationType()
    )?.getFields()[publicField]?.type;
    if (!publicType) throw new Error(`route ${publicField} is not a root field of the public schema`);
    // Ask the service only for what the client selected, when that maps field by field; else for the whole message.
    const delegatedFields = new SelectionCache((sets, fragments) =>
      field(rawField, delegatedSelection(publicType, rawType, sets, fragments) ?? whole),
    );
    resolvers[publicRoot] = {
      ...resolvers[publicRoot],
      [publicField]: async (root: unknown, args: Json, context: GatewayContext, info: GraphQLResolveInfo) => {
        const sdk = (context as unknown as Record<string, Record<string, Record<string, SubgraphCall>>>)[route.service];
        const call = sdk?.[rootType]?.[rawField];
        if (!call) throw new Error(`no in-context SDK for ${route.service}.${rootType}.${rawField}`);
        const input = plainData(route.request ? await route.request(args) : args) as Json;
        // The SDK delegates the field nodes of `info`: given the one built here, it sends exactly that selection, with
        // no client fragment to carry and no selection to rewrite on each call.
        const fieldNodes = [delegatedFields.get(info.fieldNodes, info.fragments)];
        const result = await call({ root, args: { input }, context, info: { ...info, fieldNodes, fragments: {} } });
        if (result instanceof Error) throw result;
        const data = plainData(result ?? {}) as Json;
        applyEffect(route, args, context, authenticator);
        return route.response ? route.response(data) : data;
      },
    };
  }
  return resolvers;
}

function applyEffect(route: Route, args: Json, context: GatewayContext, authenticator: Authenticator): void {
  if (route.effect === 'evict-key' && typeof args.keyId === 'string') authenticator.evict(args.keyId);
  if (route.effect === 'evict-session' && context.principal?.sessionId)
    authenticator.evict(context.principal.sessionId);
  if (route.effect === 'evict-org' && typeof args.id === 'string') authenticator.evictOrg(args.id);
}
