import { expect } from 'chai';
import { grpcClient, newId, systemPrincipal, unary } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import { SAMPLES } from '../support/media-samples';
import { ALL_SCOPES_BUT_PARTNER, StackHarness, type GraphQLResponse, type TestOrg } from '../support/stack-harness';

export const CHAT_FIELDS =
  '_id conversationId status priority category subject assigneeId collectionId unreadCount contact { _id name email phone }';
export const CONVERSATION_FIELDS =
  '_id blocked aiEnabled unreadCount threadCount openThreadCount contact { _id name email phone }';
export const MESSAGE_FIELDS =
  '_id chatId conversationId type text internal deleted deletedAt editedAt edits { text editedAt } reactions { emoji reactorId } labelIds mediaIds location { latitude longitude name } contactCard { name phone email } buttons { id title url } deliveryStatus';
export const PAGE = (fields: string) => `{ data { ${fields} } nextCursor previousCursor hasNext hasPrevious }`;

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  previousCursor: string | null;
  hasNext: boolean;
  hasPrevious: boolean;
}

export function expectError(response: GraphQLResponse, status: number, code: string): void {
  expect(response.status, JSON.stringify(response.body)).to.equal(status);
  expect(response.body.errors?.[0]?.extensions?.code, JSON.stringify(response.body)).to.equal(code);
}

/** A 200 answer refused with `code`, naming the input `field` (BAD_USER_INPUT, NOT_FOUND, CONFLICT…). */
export function expectField(response: GraphQLResponse, code: string, field: string): void {
  expectError(response, 200, code);
  expect(response.body.errors?.[0]?.extensions?.field, JSON.stringify(response.body)).to.equal(field);
}

/** The error a caller sees, with the id under test written as `<id>`, for comparing two refusals. */
export function refusalOf(response: GraphQLResponse, id: string) {
  const [error] = response.body.errors ?? [];
  return {
    status: response.status,
    code: error?.extensions?.code,
    field: error?.extensions?.field,
    message: error?.message.replaceAll(id, '<id>'),
  };
}

/** The data of a successful response (fails the test with the errors otherwise). */
export function dataOf<T>(response: GraphQLResponse<T>): T {
  expect(response.body.errors, JSON.stringify(response.body.errors)).to.equal(undefined);
  expect(response.status).to.equal(200);
  return response.body.data as T;
}

/**
 * What channels and the widget do (no public operation opens a chat or records an inbound message): calls the inbox
 * over gRPC as a SYSTEM principal of the org.
 */
export class ChannelSimulator {
  constructor(
    private readonly harness: StackHarness,
    private readonly org: TestOrg,
  ) {}

  private async call<T>(run: (client: InboxServiceClient) => Promise<T>): Promise<T> {
    const client = grpcClient(InboxServiceClient, `127.0.0.1:${this.harness.stack.inbox.grpcPort}`);
    try {
      return await run(client);
    } finally {
      client.close();
    }
  }

  /** Opens a thread of `contactId` (a new contact unless given) on a new channel unless given. */
  openChat(options: { contactId?: string; channelId?: string; name?: string } = {}) {
    return this.call((client) =>
      unary(
        client.openChat.bind(client),
        {
          channelId: options.channelId ?? newId(),
          contact: {
            _id: options.contactId ?? newId(),
            name: options.name ?? 'Ada Lovelace',
            email: 'ada@example.com',
            phone: '+15550100100',
          },
        },
        this.harness.stack.signer.metadata(systemPrincipal(this.org.id), 'inbox'),
      ),
    );
  }

  receive(chatId: string, text: string) {
    return this.call((client) =>
      unary(
        client.receiveMessage.bind(client),
        { chatId, text, mediaIds: [] },
        this.harness.stack.signer.metadata(systemPrincipal(this.org.id), 'inbox'),
      ),
    );
  }
}

/** What an inbox suite works with once its `before` hook ran. */
export interface InboxSuite {
  harness: StackHarness;
  org: TestOrg;
  /** A key of `org` holding every scope but PARTNER_ADMIN. */
  key: string;
  channels: ChannelSimulator;
  /** The envelopes of `org` published on the observed topics, in order (empty unless `observe` names topics). */
  seen: Envelope[];
}

/**
 * The setup the inbox suites share: registers mocha hooks that start the whole stack, create an org with a key and a
 * channel simulator (and, with `observe`, collect the org's events on those topics from the bus), and stop it all
 * after the suite. Call it inside `describe`; the fields are set once `before` has run.
 */
export function inboxSuite(options: { observe?: string[] } = {}): InboxSuite {
  const suite = { harness: new StackHarness(), seen: [] as Envelope[] } as InboxSuite;
  let stopObserving = async () => undefined as void;
  before(async function () {
    this.timeout(120_000);
    const { harness } = suite;
    await harness.start();
    suite.org = await harness.newOrg();
    suite.key = (await suite.org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
    suite.channels = new ChannelSimulator(harness, suite.org);
    if (!options.observe?.length) return;
    const prefix = harness.stack.config.KAFKA_TOPIC_PREFIX;
    const subscription = await harness.stack.bus.subscribe({
      groupId: `e2e-inbox-${newId()}`,
      topics: options.observe.map((topic) => `${prefix}${topic}`),
      fromBeginning: true,
      handle: async (record) => {
        const envelope = Envelope.decode(record.value);
        if (envelope.orgId === suite.org.id) suite.seen.push(envelope);
      },
    });
    stopObserving = () => subscription.stop();
  });
  after(async () => {
    await stopObserving();
    await suite.harness.stop();
  });
  return suite;
}

/** Ids of one org's inbox data: a chat with a message and a media message, a label, a collection, a member. */
export interface World {
  chatId: string;
  conversationId: string;
  messageId: string;
  labelId: string;
  collectionId: string;
  mediaId: string;
  /** A member of the org (an agent): assignees must be members (docs/decisions/0034). */
  operatorId: string;
}

/** Creates a fresh `World` in `org`, through the public API with a key holding every scope but PARTNER_ADMIN. */
export async function createInboxWorld(harness: StackHarness, org: TestOrg): Promise<World> {
  const key = (await org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
  const chat = await new ChannelSimulator(harness, org).openChat();
  /** The `_id` a mutation of one root field answers. */
  const created = async (query: string, variables: Record<string, unknown>) =>
    Object.values(dataOf(await harness.graphql<Record<string, { _id: string }>>(query, variables, key)))[0]?._id ?? '';
  const messageId = await created(
    'mutation($chatId: String!) { sendMessage(chatId: $chatId, input: { text: "hello" }) { _id } }',
    { chatId: chat._id },
  );
  const labelId = await created('mutation($name: String!) { createLabel(input: { name: $name }) { _id } }', {
    name: `vip ${newId()}`,
  });
  const collectionId = await created(
    'mutation($name: String!) { apiCreateChatCollection(input: { name: $name }) { _id } }',
    { name: `Sales ${newId()}` },
  );
  const media = dataOf(
    await harness.upload<{ createMedia: { _id: string } }>(
      'mutation($f: File!) { createMedia(file: $f) { _id } }',
      { f: null },
      { 'variables.f': { bytes: SAMPLES.png, name: 'logo.png' } },
      key,
    ),
  ).createMedia;
  await created(
    'mutation($chatId: String!, $ids: [String!]!) { sendMessage(chatId: $chatId, input: { type: MEDIA, mediaIds: $ids, text: "" }) { _id } }',
    { chatId: chat._id, ids: [media._id] },
  );
  return {
    mediaId: media._id,
    chatId: chat._id,
    conversationId: chat.conversationId,
    messageId,
    labelId,
    collectionId,
    operatorId: await org.addMember(),
  };
}
