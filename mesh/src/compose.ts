import { Kind, parse, print, visit, type DirectiveNode, type ObjectFieldNode, type ObjectValueNode } from 'graphql';
import { getComposedSchemaFromConfig } from '@graphql-mesh/compose-cli';
import { DefaultLogger } from '@graphql-mesh/utils';
import { loadGrpcSubgraph } from '@omnigraph/grpc';
import { PROTO_ROOT } from '@svc/proto/protos';
import {
  CLIENT_ADDRESS_HEADER,
  DEFAULT_CALL_POLICY,
  PRINCIPAL_HEADER,
  REQUEST_ID_HEADER,
  grpcChannelOptions,
  type GrpcCallPolicy,
} from '@svc/kit';

/** One gRPC subgraph per service: its name, its proto file and where it listens. */
export interface SubgraphSource {
  name: string;
  proto: string;
  endpoint: string;
}

/** Generated gRPC root fields (`svc_<domain>_v1_<Service>_<Method>`) and types (`svc__…`) stay internal. */
const isRawField = (name: string) => /^svc_[a-z0-9]+_v\d+_/.test(name);
const isRawType = (name: string) => name.startsWith('svc__') || name === 'ConnectivityState';
/**
 * `source.load.defaults` only reaches the composer's parser; the transport decodes with proto-loader options stored
 * per transport root, so proto3 defaults (false, 0, '', enum 0) would come back null. Give every root `defaults: true`.
 */
const LOAD_DEFAULTS: ObjectFieldNode = {
  kind: Kind.OBJECT_FIELD,
  name: { kind: Kind.NAME, value: 'loadOptions' },
  value: {
    kind: Kind.OBJECT,
    fields: [
      {
        kind: Kind.OBJECT_FIELD,
        name: { kind: Kind.NAME, value: 'defaults' },
        value: { kind: Kind.BOOLEAN, value: true },
      },
    ],
  },
};

/** The options object of each gRPC `@transport`: proto3 defaults per root, and the channel options of the policy. */
function withTransportOptions(node: ObjectValueNode, channelOptions: ObjectFieldNode): ObjectValueNode | undefined {
  const roots = node.fields.find((f) => f.name.value === 'roots');
  if (!roots || roots.value.kind !== Kind.LIST) return undefined;
  const values = roots.value.values.map((root) =>
    root.kind !== Kind.OBJECT || root.fields.some((f) => f.name.value === 'loadOptions')
      ? root
      : { ...root, fields: [...root.fields, LOAD_DEFAULTS] },
  );
  const fields = node.fields
    .filter((f) => f.name.value !== 'channelOptions')
    .map((f) => (f === roots ? { ...roots, value: { ...roots.value, values } } : f));
  return { ...node, fields: [...fields, channelOptions] };
}

/**
 * Channel options travel as [name, value] pairs: GraphQL field names cannot hold the dots of `grpc.*` options. They
 * carry the deadlines and retries (the transport's own `requestTimeout` is left unset: one deadline, per method).
 */
function channelOptionsField(policy: GrpcCallPolicy): ObjectFieldNode {
  return {
    kind: Kind.OBJECT_FIELD,
    name: { kind: Kind.NAME, value: 'channelOptions' },
    value: {
      kind: Kind.LIST,
      values: Object.entries(grpcChannelOptions(policy)).map(([name, value]) => ({
        kind: Kind.LIST,
        values: [
          { kind: Kind.STRING, value: name },
          { kind: Kind.STRING, value },
        ],
      })),
    },
  };
}

/**
 * How the composer parses the protos. `keepCase: false` (protobufjs's own parse option, which `@omnigraph/grpc` spreads
 * over its `keepCase: true`; its typings list only the other two) names every field in camelCase as the public schema
 * does, in the raw schema and in the transport's decoded messages alike: no key is renamed on any call (the wire
 * carries field numbers). compose.test.ts fails if an upgrade stops honouring it.
 */
const PROTO_LOAD_OPTIONS = { defaults: true, includeDirs: [PROTO_ROOT], keepCase: false };

const INACCESSIBLE: DirectiveNode = { kind: Kind.DIRECTIVE, name: { kind: Kind.NAME, value: 'inaccessible' } };

function hide<T extends { directives?: readonly DirectiveNode[] }>(node: T): T {
  return node.directives?.some((d) => d.name.value === 'inaccessible')
    ? node
    : { ...node, directives: [...(node.directives ?? []), INACCESSIBLE] };
}

/**
 * Composes the supergraph from the services' protos with GraphQL Mesh compose, at gateway start-up, so the endpoints
 * baked into it are the ones this gateway talks to. The public resolvers check their routes against it and call the
 * services with the generated clients (mesh/src/route-calls.ts); the transport options kept here (metadata from the
 * GraphQL context, proto3 defaults, the call policy) are what Mesh's gRPC transport would use for a raw field, which no
 * request reaches (they are @inaccessible). Returns the raw supergraph (for the resolver table) and the public one.
 */
export async function composeSupergraph(
  sources: SubgraphSource[],
  options: { callPolicy?: GrpcCallPolicy } = {},
): Promise<{ raw: string; hidden: string }> {
  const raw = await getComposedSchemaFromConfig(
    {
      cwd: PROTO_ROOT,
      subgraphs: sources.map((source) => ({
        sourceHandler: loadGrpcSubgraph(source.name, {
          endpoint: source.endpoint,
          source: { file: source.proto, load: PROTO_LOAD_OPTIONS },
          metaData: {
            // The token signed for this subgraph's service (its audience): mesh/src/auth/signed-principals.ts.
            [PRINCIPAL_HEADER]: `{context.principalTokens.${source.name}}`,
            [CLIENT_ADDRESS_HEADER]: '{context.clientAddress}',
            [REQUEST_ID_HEADER]: '{context.requestId}',
          },
        }),
      })),
    },
    new DefaultLogger('compose'),
  );
  const channelOptions = channelOptionsField(options.callPolicy ?? DEFAULT_CALL_POLICY);
  const document = visit(parse(raw), {
    ObjectValue: (node) => withTransportOptions(node, channelOptions),
    FieldDefinition: (node) => (isRawField(node.name.value) ? hide(node) : undefined),
    ObjectTypeDefinition: (node) => (isRawType(node.name.value) ? hide(node) : undefined),
    InputObjectTypeDefinition: (node) => (isRawType(node.name.value) ? hide(node) : undefined),
    EnumTypeDefinition: (node) => (isRawType(node.name.value) ? hide(node) : undefined),
  });
  const directive = parse(
    'directive @inaccessible on FIELD_DEFINITION | OBJECT | INTERFACE | UNION | ARGUMENT_DEFINITION | SCALAR | ENUM | ENUM_VALUE | INPUT_OBJECT | INPUT_FIELD_DEFINITION',
  ).definitions;
  const alreadyDeclared = document.definitions.some(
    (d) => d.kind === Kind.DIRECTIVE_DEFINITION && d.name.value === 'inaccessible',
  );
  return {
    raw,
    hidden: print(alreadyDeclared ? document : { ...document, definitions: [...directive, ...document.definitions] }),
  };
}
