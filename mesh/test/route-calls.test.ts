import { expect } from 'chai';
import {
  Metadata,
  status,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedHandleCall,
} from '@grpc/grpc-js';
import {
  buildASTSchema,
  getNamedType,
  isListType,
  isNonNullType,
  isObjectType,
  parse,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import {
  FIELD_MASK_HEADER,
  PRINCIPAL_HEADER,
  PrincipalVerifier,
  REQUEST_ID_HEADER,
  jwksSchema,
  testTrustKeys,
} from '@svc/kit';
import { Label, LabelServiceService, type LabelIdRequest } from '@svc/proto/inbox/v1/labels';
import { composeSupergraph } from '../src/compose';
import { generatedMessage, rawRootField } from '../src/route-calls';
import { ROUTES } from '../src/routes';
import { publicSchema } from '../src/schema';
import { SUBGRAPHS } from '../src/subgraphs';
import { PRINCIPAL, fakeServices, gatewayOn, post } from './support/fake-services';

const POLICY = { deadlineMs: 5_000, retryAttempts: 1, uploadDeadlineMs: 5_000 };

describe('gateway: routes call their gRPC method with the generated clients', function () {
  this.timeout(60_000);
  const received: { metadata: Metadata; deadline: number; sentAfter: number }[] = [];
  let sentAfter = 0;
  let services: Awaited<ReturnType<typeof fakeServices>>;
  let gateway: Awaited<ReturnType<typeof gatewayOn>>;

  before(async () => {
    const getLabel = (call: ServerUnaryCall<LabelIdRequest, Label>, callback: sendUnaryData<Label>) => {
      received.push({ metadata: call.metadata, deadline: new Date(call.getDeadline()).getTime(), sentAfter });
      if (call.request.labelId !== 'l1') {
        const metadata = new Metadata();
        metadata.set('x-svc-error-field', 'labelId');
        callback({ code: status.NOT_FOUND, details: `label ${call.request.labelId} not found`, metadata });
        return;
      }
      // Only the id and the timestamps: every other field is its proto3 default, `description` (optional) absent.
      const at = '2026-11-25T00:00:00.000Z';
      callback(null, Label.fromPartial({ _id: 'l1', createdAt: at, updatedAt: at }));
    };
    const answering = new Map<ServiceDefinition, Record<string, UntypedHandleCall>>([
      [LabelServiceService, { getLabel: getLabel as UntypedHandleCall }],
    ]);
    services = await fakeServices(answering);
    gateway = await gatewayOn(Object.fromEntries(SUBGRAPHS.map(({ app }) => [app, services.address])), POLICY);
  });

  after(async () => {
    await gateway.stop();
    services.stop();
  });

  it('answers the service message with proto3 defaults, not nulls, and absent optional fields as null', async () => {
    sentAfter = Date.now();
    const body = await post(gateway.url, '{ label(labelId: "l1") { _id name color archived description createdAt } }');
    expect(body).to.deep.equal({
      data: {
        label: {
          _id: 'l1',
          name: '',
          color: '',
          archived: false,
          description: null,
          createdAt: '2026-11-25T00:00:00.000Z',
        },
      },
    });
  });

  it("sends the principal signed for the service's audience, the request id and the call policy's deadline", async () => {
    sentAfter = Date.now();
    await post(gateway.url, '{ label(labelId: "l1") { _id } }', { [REQUEST_ID_HEADER]: 'request-route-calls' });
    const call = received.at(-1);
    if (!call) throw new Error('the service got no call');
    const token = call.metadata.get(PRINCIPAL_HEADER)[0];
    const verifier = new PrincipalVerifier('inbox', jwksSchema.parse(testTrustKeys().jwks));
    expect(await verifier.verify(String(token))).to.deep.include({ orgId: PRINCIPAL.orgId, keyId: PRINCIPAL.keyId });
    expect(call.metadata.get(REQUEST_ID_HEADER)).to.deep.equal(['request-route-calls']);
    expect(call.deadline).to.be.within(call.sentAfter, Date.now() + POLICY.deadlineMs);
  });

  it('sends the fields the selection reads as the response field mask (docs/decisions/0290)', async () => {
    await post(gateway.url, '{ label(labelId: "l1") { __typename n: name ...L } } fragment L on Label { _id color }');
    expect(received.at(-1)?.metadata.get(FIELD_MASK_HEADER)).to.deep.equal(['name,_id,color']);
  });

  it("maps the service's gRPC error to its GraphQL code, with its message and the field it names", async () => {
    const body = await post(gateway.url, '{ label(labelId: "missing") { _id } }');
    expect(body.errors).to.deep.equal([
      {
        message: 'label missing not found',
        locations: [{ line: 1, column: 3 }],
        path: ['label'],
        extensions: { code: 'NOT_FOUND', field: 'labelId' },
      },
    ]);
  });
});

/** How many list levels wrap a type (`[[T!]]!` has 2). */
function listDepth(type: GraphQLOutputType): number {
  let depth = 0;
  for (let current = type; ;) {
    if (isNonNullType(current)) current = current.ofType;
    else if (isListType(current)) {
      depth += 1;
      current = current.ofType as GraphQLOutputType;
    } else return depth;
  }
}

/** A partial message with every object field of the public type present (lists of one), to the depth limit. */
function filled(type: GraphQLOutputType, depth = 0): unknown {
  const named = getNamedType(type);
  if (!isObjectType(named) || depth > 6) return undefined;
  const object = Object.fromEntries(
    Object.values(named.getFields()).flatMap((field) => {
      const inner = filled(field.type, depth + 1);
      return inner === undefined ? [] : [[field.name, inner]];
    }),
  );
  return listDepth(type) ? [object] : object;
}

/** Public fields (`Type.field`) the generated message `value` has no field of the same name and shape for. */
function unmatched(type: GraphQLOutputType, value: unknown, depth = 0): string[] {
  const named = getNamedType(type);
  if (!isObjectType(named) || depth > 6) return [];
  const object: unknown = listDepth(type) && Array.isArray(value) ? value[0] : value;
  if (typeof object !== 'object' || object === null) return [`${named.name} (not a message)`];
  return Object.values(named.getFields()).flatMap((field) => {
    const name = `${named.name}.${field.name}`;
    if (!(field.name in object)) return [name];
    const inner = (object as Record<string, unknown>)[field.name];
    if (listDepth(field.type) !== (Array.isArray(inner) ? 1 : 0)) return [name];
    if (!isObjectType(getNamedType(field.type))) {
      const sample: unknown = Array.isArray(inner) ? inner[0] : inner;
      return typeof sample === 'object' && sample !== null ? [name] : [];
    }
    return unmatched(field.type, inner, depth + 1);
  });
}

describe('gateway: the generated messages have the public shapes', function () {
  this.timeout(30_000);
  let raw: GraphQLSchema;
  const pub = publicSchema();

  before(async () => {
    const composed = await composeSupergraph(
      SUBGRAPHS.map(({ name, proto }) => ({ name, proto, endpoint: '127.0.0.1:1' })),
    );
    raw = buildASTSchema(parse(composed.raw), { assumeValid: true, assumeValidSDL: true });
  });

  const publicRoot = (field: string) => {
    const type = pub.getQueryType()?.getFields()[field]?.type ?? pub.getMutationType()?.getFields()[field]?.type;
    if (!type) throw new Error(`no public field ${field}`);
    return type;
  };

  it('passes through every field of every route without a `response`: same name, same list depth, leaf or object', () => {
    // Such a route returns the service's message as ts-proto decodes it: a public field it lacks would answer null.
    const mismatches: string[] = [];
    for (const [field, route] of Object.entries(ROUTES)) {
      if (route.response) continue;
      const type = publicRoot(field);
      const message = generatedMessage(getNamedType(rawRootField(raw, route).type).name);
      mismatches.push(...unmatched(type, message.fromPartial(filled(type))).map((name) => `${field}: ${name}`));
    }
    expect(mismatches).to.deep.equal([]);
  });

  it('finds the shape check failing on a public field the message lacks', () => {
    const label = generatedMessage('svc__inbox__v1__Label').fromPartial({});
    const withExtra = buildASTSchema(parse('type Query { label: Label } type Label { _id: String colour: String }'));
    const type = withExtra.getQueryType()?.getFields().label?.type;
    if (!type) throw new Error('no field');
    expect(unmatched(type, label)).to.deep.equal(['Label.colour']);
  });
});
