import { expect } from 'chai';
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isLeafType,
  isObjectType,
  isRequiredArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  type GraphQLType,
  type IntrospectionQuery,
} from 'graphql';
import { OrgKind } from '@svc/kit';
import { operationCall, randomId, type ArgumentValueOptions, type ValuePath } from '../support/argument-values';
import {
  idSlots,
  ownIdFill,
  unknownIdOf,
  valueWith,
  type Assignment,
  type IdSlot,
  type ObjectKind,
} from '../support/id-arguments';
import { SAMPLES } from '../support/media-samples';
import { insertPartnerDelivery } from '../support/partner-webhooks';
import { ALL_SCOPES_BUT_PARTNER, StackHarness, type GraphQLResponse, type TestOrg } from '../support/stack-harness';

/**
 * Decision 0042 as a property of the running stack, generated from the public schema's introspection (no list of
 * operations here): for every mutation and every id-valued argument or input field (decision 0043 says how they are
 * recognised), org B — with its owner's session and with a key holding every scope — passes a real id of org A's of the
 * kind the field names, every other id being B's own. Each call is refused, NOT_FOUND or an input error for the
 * session, and answered exactly as the same call with an id nobody has (no existence oracle); and nothing changed
 * anywhere: every query both orgs can read (those whose required arguments are ids of their own objects) answers
 * the same before and after.
 */

type Field = GraphQLField<unknown, unknown>;

interface Org {
  org: TestOrg;
  key: string;
  objects: Map<ObjectKind, string>;
}

/** Fields that change on their own when an org merely calls (a key's last use): not stored by the refused calls. */
const VOLATILE = /^(lastUsedAt)$/;

/**
 * Text fields whose generated value (a random word) would be refused before any id in the call is looked at, with the
 * value that passes, so the id under test is what decides (a connection's channel: decision 0042).
 */
const VALID_TEXT: Record<string, unknown> = { identifierPath: '$.id', events: ['message.created'] };

/** A refusal reduced to what a caller sees, with the id under test written as `<id>`. */
function outcome(response: GraphQLResponse, field: string, id: string) {
  const errors = (response.body.errors ?? []).map((error) => ({
    code: error.extensions?.code,
    field: error.extensions?.field,
    message: error.message.replaceAll(id, '<id>'),
  }));
  const data = response.body.data?.[field];
  return { status: response.status, accepted: data !== undefined && data !== null, errors };
}

/** Scalar fields of a result type, and those of its object fields one level down: enough to see any change. */
function selectionOf(type: GraphQLType, depth = 0): string {
  const named = getNamedType(type);
  if (isLeafType(named) || !isObjectType(named)) return '';
  const fields = Object.values(named.getFields()).filter(
    (f) => !f.args.some(isRequiredArgument) && !VOLATILE.test(f.name),
  );
  const parts = fields.flatMap((f) => {
    const inner = getNamedType(f.type);
    if (isLeafType(inner) || isEnumType(inner)) return [f.name];
    if (depth >= 1) return [];
    const nested = selectionOf(f.type, depth + 1);
    return nested ? [`${f.name} ${nested}`] : [];
  });
  return parts.length ? `{ ${parts.join(' ')} }` : '{ __typename }';
}

describe('Org isolation: another org’s ids in every mutation (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let a: Org;
  let b: Org;
  let schema: GraphQLSchema;

  async function must<T>(response: Promise<GraphQLResponse<T>>, what: string): Promise<T> {
    const { body } = await response;
    if (!body.data) throw new Error(`${what} failed: ${JSON.stringify(body)}`);
    return body.data;
  }

  /** One object of every kind an org can own today (a channel: its cheapest kind, a web integration). */
  async function populate(org: TestOrg): Promise<Org> {
    const gql = <T>(query: string, variables: Record<string, unknown> = {}) =>
      must(harness.graphql<T>(query, variables, org.sessionToken), query);
    const objects = new Map<ObjectKind, string>();
    const chatId = await org.openChat();
    objects.set('chat', chatId);
    const chat = await gql<{ chat: { conversationId: string } }>(
      'query($c: String!) { chat(chatId: $c) { conversationId } }',
      {
        c: chatId,
      },
    );
    objects.set('conversation', chat.chat.conversationId);
    const sent = await gql<{ sendMessage: { _id: string } }>(
      'mutation($c: String!) { sendMessage(chatId: $c, input: { text: "hello" }) { _id } }',
      { c: chatId },
    );
    objects.set('message', sent.sendMessage._id);
    const label = await gql<{ createLabel: { _id: string } }>(
      'mutation($n: String!) { createLabel(input: { name: $n }) { _id } }',
      { n: `label ${randomId()}` },
    );
    objects.set('label', label.createLabel._id);
    const collection = await gql<{ apiCreateChatCollection: { _id: string } }>(
      'mutation { apiCreateChatCollection(input: { name: "vip" }) { _id } }',
    );
    objects.set('collection', collection.apiCreateChatCollection._id);
    const media = await must(
      harness.upload<{ createMedia: { _id: string } }>(
        'mutation($f: File!) { createMedia(file: $f) { _id } }',
        { f: null },
        { 'variables.f': { bytes: SAMPLES.png, name: 'a.png', type: 'image/png' } },
        org.sessionToken,
      ),
      'createMedia',
    );
    objects.set('media', media.createMedia._id);
    const contact = await gql<{ createContactApi: { id: string } }>(
      'mutation { createContactApi(input: { name: "Ada" }) { id } }',
    );
    objects.set('contact', contact.createContactApi.id);
    const field = await gql<{ createPeopleFieldDefinition: { id: string } }>(
      'mutation { createPeopleFieldDefinition(input: { key: "nickname", label: "Nickname", type: TEXT }) { id } }',
    );
    objects.set('peopleField', field.createPeopleFieldDefinition.id);
    const article = await gql<{ createHelpArticle: { id: string } }>(
      'mutation { createHelpArticle(input: { title: "Resetting a password", bodyMarkdown: "Click **Forgot**" }) { id } }',
    );
    objects.set('helpArticle', article.createHelpArticle.id);
    const folder = await gql<{ createHelpFolder: { id: string } }>(
      'mutation { createHelpFolder(input: { name: "Guides" }) { id } }',
    );
    objects.set('helpFolder', folder.createHelpFolder.id);
    const flow = await gql<{ createFlow: { _id: string } }>(
      'mutation { createFlow(input: { name: "f", trigger: { type: STARTED_FOR_CHAT } }) { _id } }',
    );
    objects.set('flow', flow.createFlow._id);
    const connection = await gql<{ createInboundConnection: { _id: string } }>(
      'mutation { createInboundConnection(input: { name: "c", identifierType: EMAIL, identifierPath: "$.email" }) { _id } }',
    );
    objects.set('connection', connection.createInboundConnection._id);
    const channel = await gql<{ createWebIntegration: { integration: { id: string } } }>(
      'mutation { createWebIntegration(input: { name: "Site" }) { integration { id } } }',
    );
    objects.set('channel', channel.createWebIntegration.integration.id);
    for (const [kind, operation] of [
      ['helpTag', 'createHelpTag'],
      ['newsCategory', 'createNewsCategory'],
      ['newsTag', 'createNewsTag'],
    ] as const) {
      const term = await gql<Record<string, { id: string }>>(`mutation { ${operation}(input: { name: "t" }) { id } }`);
      objects.set(kind, (term[operation] as { id: string }).id);
    }
    const post = await gql<{ createNewsPost: { id: string } }>(
      'mutation { createNewsPost(input: { title: "News", bodyMarkdown: "Hi" }) { id } }',
    );
    objects.set('newsPost', post.createNewsPost.id);
    const webhook = await gql<{ registerPartnerWebhook: { webhook: { id: string } } }>(
      'mutation { registerPartnerWebhook(input: { url: "https://93.184.215.14/hook", events: ["message.created"] }) { webhook { id } } }',
    );
    const webhookId = webhook.registerPartnerWebhook.webhook.id;
    objects.set('partnerWebhook', webhookId);
    objects.set('partnerDelivery', await insertPartnerDelivery(harness, { orgId: org.id, id: webhookId }));
    objects.set('member', await org.addMember());
    const key = await org.mintKey(ALL_SCOPES_BUT_PARTNER);
    objects.set('key', key.id);
    return { org, key: key.key, objects };
  }

  async function call(field: Field, token: string, options: ArgumentValueOptions): Promise<GraphQLResponse> {
    const { query, variables, files } = operationCall('mutation', field, options);
    if (!files.length) return harness.graphql(query, variables, token);
    const upload = { bytes: SAMPLES.png, name: 'isolation.png', type: 'image/png' };
    return harness.upload(query, variables, Object.fromEntries(files.map((path) => [path, upload])), token);
  }

  /**
   * The call with `id` in the slot and the caller's own objects wherever else an id can go outside a list (required
   * or not: an optional one, like a flow trigger's connection, may be what makes the rest of the input valid), so the
   * foreign id is the only reason to refuse it.
   */
  function slotCall(field: Field, slot: IdSlot, id: string, own: Org, token: string) {
    const mine = (kind: ObjectKind) => own.objects.get(kind);
    const ids = ownIdFill(field.name, mine);
    const fill = (path: ValuePath, type: GraphQLInputType) => VALID_TEXT[String(path.at(-1))] ?? ids(path, type);
    const others = idSlots(field).flatMap((other): Assignment[] => {
      const ownId = other.kinds.map(mine).find((found) => found !== undefined);
      // Not in a list, not the slot, and not a conditional id beside it (two conditions on one object contradict).
      const parent = (path: ValuePath) => path.slice(0, -1).join('.');
      const beside = parent(other.path) === parent(slot.path) && (other.when ?? slot.when) !== undefined;
      const apart = !other.path.includes(0) && other.path.join('.') !== slot.path.join('.') && !beside;
      return apart && ownId ? [{ path: other.path, value: other.list ? [ownId] : ownId, when: other.when }] : [];
    });
    const assignments: Assignment[] = [{ path: slot.path, value: slot.list ? [id] : id, when: slot.when }, ...others];
    const overrides: Record<string, unknown> = {};
    for (const arg of field.args) {
      const here = assignments.filter((a) => a.path[0] === arg.name).map((a) => ({ ...a, path: a.path.slice(1) }));
      if (here.length) overrides[arg.name] = valueWith(arg.type, [arg.name], here, fill);
    }
    return call(field, token, { fill, overrides });
  }

  /** Every query of the schema an org can call with its own objects, answered as the org's owner sees it. */
  async function snapshot(org: Org): Promise<Record<string, unknown>> {
    const answers: Record<string, unknown> = {};
    const fill = (name: string) => ownIdFill(name, (kind) => org.objects.get(kind));
    for (const field of Object.values(schema.getQueryType()?.getFields() ?? {})) {
      const filled = field.args.filter(isRequiredArgument).every((arg) => fill(field.name)([arg.name], arg.type));
      if (!filled) continue;
      const { query, variables } = operationCall('query', field, { fill: fill(field.name) });
      const selected = query.replace(/ \{ __typename \} \}$/, ` ${selectionOf(field.type)} }`);
      answers[field.name] = (await harness.graphql(selected, variables, org.org.sessionToken)).body;
    }
    return answers;
  }

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    // Tech providers, so that partner webhooks and their deliveries are among the objects each org owns.
    const provider = (name: string) => harness.newOrg(name, OrgKind.TECH_PROVIDER);
    [a, b] = [await populate(await provider('A')), await populate(await provider('B'))];
    const introspection = await harness.graphql<IntrospectionQuery>(getIntrospectionQuery(), {}, b.key);
    if (!introspection.body.data) throw new Error(`introspection failed: ${JSON.stringify(introspection.body)}`);
    schema = buildClientSchema(introspection.body.data);
  });

  after(async () => harness.stop());

  const mutations = () => Object.values(schema.getMutationType()?.getFields() ?? {});

  it('finds the id-valued arguments and input fields, each naming a kind of object', () => {
    const found = mutations().flatMap((field) => idSlots(field).map((slot) => ({ field: field.name, ...slot })));
    expect(found.length).to.be.greaterThan(40);
    // Spot checks of the recognition rule (decision 0043), one per way a field is recognised.
    const at = (field: string, path: string) =>
      found.find((slot) => slot.field === field && slot.path.join('.') === path)?.kinds;
    expect(at('updateContactApi', 'id')).to.deep.equal(['contact']);
    expect(at('createFlow', 'input.steps.0.label')).to.deep.equal(['label']);
    expect(at('createFlow', 'input.trigger.connectionId')).to.deep.equal(['connection']);
    expect(at('setMessageLabels', 'labelIds')).to.deep.equal(['label']);
    expect(at('createContactApi', 'input.externalId')).to.equal(undefined);
    expect(at('setPeopleFieldValue', 'definitionId')).to.deep.equal(['peopleField']);
    expect(at('deletePeopleFieldDefinition', 'id')).to.deep.equal(['peopleField']);
    expect(at('publishHelpArticle', 'id')).to.deep.equal(['helpArticle']);
    expect(at('createHelpArticle', 'input.folderId')).to.deep.equal(['helpFolder']);
    expect(at('updateHelpArticle', 'input.tagIds')).to.deep.equal(['helpTag']);
    expect(at('moveHelpFolder', 'parentId')).to.deep.equal(['helpFolder']);
    expect(at('createHelpFolder', 'input.parentId')).to.deep.equal(['helpFolder']);
    expect(at('apiMoveChatCollection', 'parentId')).to.deep.equal(['collection']);
    expect(at('updateNewsCategory', 'id')).to.deep.equal(['newsCategory']);
    expect(at('scheduleNewsPost', 'id')).to.deep.equal(['newsPost']);
    expect(at('setPartnerWebhookEvents', 'id')).to.deep.equal(['partnerWebhook']);
    expect(at('replayPartnerWebhookDelivery', 'id')).to.deep.equal(['partnerDelivery']);
    const identity = found.find(
      (slot) => slot.field === 'createContactApi' && slot.path.join('.') === 'input.identities.0.value',
    );
    expect([identity?.kinds, identity?.when]).to.deep.equal([['chat'], { field: 'type', value: 'CHAT_ID' }]);
    const labelStep = found.find(
      (slot) => slot.field === 'createFlow' && slot.path.join('.') === 'input.steps.0.label',
    );
    expect(labelStep?.when).to.deep.equal({ field: 'type', value: 'ADD_LABEL' });
  });

  it('refuses another org’s id in every one of them exactly like an unknown id, and stores nothing', async function () {
    this.timeout(600_000);
    const before = { a: await snapshot(a), b: await snapshot(b) };
    const failures: string[] = [];
    for (const field of mutations()) {
      for (const slot of idSlots(field)) {
        for (const kind of slot.kinds) {
          const foreign = a.objects.get(kind);
          if (!foreign) continue; // a kind with no objects yet (template)
          for (const [caller, token] of [
            ['session', b.org.sessionToken],
            ['key', b.key],
          ] as const) {
            const where = `${field.name}(${slot.path.join('.')}) ${kind} as ${caller}`;
            const unknown = unknownIdOf(kind);
            const theirs = outcome(await slotCall(field, slot, foreign, b, token), field.name, foreign);
            const nobodys = outcome(await slotCall(field, slot, unknown, b, token), field.name, unknown);
            if (theirs.accepted) failures.push(`${where}: accepted`);
            else if (
              caller === 'session' &&
              !theirs.errors.some((e) => ['NOT_FOUND', 'BAD_USER_INPUT'].includes(e.code ?? ''))
            )
              failures.push(`${where}: refused with ${JSON.stringify(theirs.errors)}`);
            if (JSON.stringify(theirs) !== JSON.stringify(nobodys))
              failures.push(
                `${where}: ${JSON.stringify(theirs)} differs from an unknown id's ${JSON.stringify(nobodys)}`,
              );
          }
        }
      }
    }
    expect(failures).to.deep.equal([]);
    const after = { a: await snapshot(a), b: await snapshot(b) };
    for (const org of ['a', 'b'] as const)
      for (const [query, answer] of Object.entries(before[org]))
        expect(after[org][query], `${query} as ${org.toUpperCase()}`).to.deep.equal(answer);
  });
});
