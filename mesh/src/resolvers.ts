import {
  buildASTSchema,
  getNamedType,
  isObjectType,
  parse,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import type { Authenticator } from './auth/authenticator';
import type { GatewayContext } from './context';
import { ROUTES, type Route } from './routes';
import { rawFieldName } from './subgraphs';

type Json = Record<string, unknown>;

const toSnake = (key: string) => (key.startsWith('_') ? key : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
const toCamel = (key: string) =>
  key.startsWith('_') ? key : key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Proto messages speak snake_case through Mesh's gRPC transport; the public schema speaks camelCase. */
export function renameKeys(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => renameKeys(item, rename));
  if (value && typeof value === 'object' && !(value instanceof Error) && !(value instanceof Uint8Array)) {
    const out: Json = {};
    for (const [key, inner] of Object.entries(value))
      if (inner !== undefined && inner !== null) out[rename(key)] = renameKeys(inner, rename);
    return out;
  }
  return value;
}

/** gRPC returns whole messages anyway, so the delegated selection asks for every field (depth-limited). */
function fullSelection(type: GraphQLOutputType, depth = 0): string {
  const named = getNamedType(type);
  if (!isObjectType(named) || depth > 6) return '';
  const parts = Object.values(named.getFields()).map((field) => {
    const inner = getNamedType(field.type);
    if (!isObjectType(inner)) return field.name;
    const sub = fullSelection(inner, depth + 1);
    return sub ? `${field.name} ${sub}` : '';
  });
  return `{ ${parts.filter(Boolean).join(' ')} }`;
}

type SubgraphCall = (options: {
  root: unknown;
  args: Json;
  context: unknown;
  info: GraphQLResolveInfo;
  selectionSet: string;
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
    const fieldType = (rootType === 'Query' ? raw.getQueryType() : raw.getMutationType())?.getFields()[rawField]?.type;
    const selectionSet = fieldType ? fullSelection(fieldType) : '';
    const publicRoot = publicRootOf(publicField);
    resolvers[publicRoot] = {
      ...resolvers[publicRoot],
      [publicField]: async (root: unknown, args: Json, context: GatewayContext, info: GraphQLResolveInfo) => {
        const sdk = (context as unknown as Record<string, Record<string, Record<string, SubgraphCall>>>)[route.service];
        const call = sdk?.[rootType]?.[rawField];
        if (!call) throw new Error(`no in-context SDK for ${route.service}.${rootType}.${rawField}`);
        const input = renameKeys(route.request ? await route.request(args) : args, toSnake) as Json;
        const result = await call({ root, args: { input }, context, info, selectionSet });
        if (result instanceof Error) throw result;
        const camel = renameKeys(result ?? {}, toCamel) as Json;
        applyEffect(route, args, context, authenticator);
        return route.response ? route.response(camel) : camel;
      },
    };
  }
  return resolvers;
}

function applyEffect(route: Route, args: Json, context: GatewayContext, authenticator: Authenticator): void {
  if (route.effect === 'evict-key' && typeof args.keyId === 'string') authenticator.evict(args.keyId);
  if (route.effect === 'evict-session' && context.principal?.sessionId)
    authenticator.evict(context.principal.sessionId);
}
