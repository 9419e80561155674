import { expect } from 'chai';
import { ApiScope, eventually, newId } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { ALL_SCOPES_BUT_PARTNER, StackHarness, type GraphQLResponse, type TestOrg } from '../support/stack-harness';

const SEND =
  'mutation($chatId: String!, $text: String!, $internal: Boolean) { sendMessage(chatId: $chatId, input: { text: $text, internal: $internal }) { _id deliveryStatus createdAt } }';
const MESSAGES =
  'query($chatId: String!, $input: PaginateMessagesInput) { getMessages(chatId: $chatId, input: $input) { data { _id text internal } nextCursor previousCursor hasNext hasPrevious } }';
const CHAT = 'query($chatId: String!) { chat(chatId: $chatId) { _id status contact { _id name email phone } } }';

type MessagesPage = {
  getMessages: {
    data: { _id: string; text: string; internal: boolean }[];
    nextCursor: string | null;
    previousCursor: string | null;
    hasNext: boolean;
    hasPrevious: boolean;
  };
};

function expectError(response: GraphQLResponse, status: number, code: string): void {
  expect(response.status, JSON.stringify(response.body)).to.equal(status);
  expect(response.body.errors?.[0]?.extensions?.code, JSON.stringify(response.body)).to.equal(code);
}

describe('GraphQL API (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let fullKey: string;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg();
    fullKey = (await org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
  });

  after(async () => harness.stop());

  describe('authentication', () => {
    it('answers 401 UNAUTHENTICATED without credentials, before looking at the query', async () => {
      expectError(await harness.graphql('{ chat(chatId: "x") { _id } }'), 401, 'UNAUTHENTICATED');
      expectError(await harness.graphql('this is not graphql'), 401, 'UNAUTHENTICATED');
    });

    it('answers 401 for malformed and unknown keys', async () => {
      expectError(await harness.graphql('{ __typename }', {}, 'not-a-key'), 401, 'UNAUTHENTICATED');
      expectError(
        await harness.graphql('{ __typename }', {}, `svc_${'0'.repeat(24)}_${'a'.repeat(43)}`),
        401,
        'UNAUTHENTICATED',
      );
    });

    it('lets login through without credentials and refuses a wrong password', async () => {
      const wrong = await harness.graphql(
        'mutation { login(email: "nobody@example.com", password: "wrong-password") { token } }',
      );
      expect(wrong.body.errors?.[0]?.extensions?.code).to.equal('UNAUTHENTICATED');
    });
  });

  describe('key revocation', () => {
    it('takes effect on the very next request', async () => {
      const minted = await org.mintKey([ApiScope.MESSAGES_READ]);
      const chatId = await org.openChat();
      expect((await harness.graphql(CHAT, { chatId }, minted.key)).status).to.equal(200);
      const revoked = await harness.graphql(
        'mutation($id: String!) { revokeOrgApiKey(keyId: $id) { id revokedAt } }',
        { id: minted.id },
        org.sessionToken,
      );
      expect(revoked.body.errors).to.equal(undefined);
      expectError(await harness.graphql(CHAT, { chatId }, minted.key), 401, 'UNAUTHENTICATED');
    });
  });

  describe('messages', () => {
    it('sends a message and returns _id and deliveryStatus', async () => {
      const chatId = await org.openChat();
      const response = await harness.graphql<{
        sendMessage: { _id: string; deliveryStatus: string; createdAt: string };
      }>(SEND, { chatId, text: 'Hello!' }, fullKey);
      expect(response.body.errors).to.equal(undefined);
      expect(response.body.data?.sendMessage._id).to.match(/^[0-9a-f]{24}$/);
      expect(response.body.data?.sendMessage.deliveryStatus).to.equal('QUEUED');
      expect(response.body.data?.sendMessage.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('pages forward and backward without skips or repeats', async () => {
      const chatId = await org.openChat();
      const texts = Array.from({ length: 12 }, (_, i) => `message ${i}`);
      for (const text of texts) await harness.graphql(SEND, { chatId, text }, fullKey);
      const forward: string[] = [];
      let page = (await harness.graphql<MessagesPage>(MESSAGES, { chatId, input: { limit: 5 } }, fullKey)).body.data
        ?.getMessages;
      forward.push(...(page?.data.map((m) => m.text) ?? []));
      while (page?.hasNext) {
        page = (
          await harness.graphql<MessagesPage>(
            MESSAGES,
            { chatId, input: { limit: 5, cursor: page.nextCursor } },
            fullKey,
          )
        ).body.data?.getMessages;
        forward.push(...(page?.data.map((m) => m.text) ?? []));
      }
      expect(forward).to.deep.equal(texts);
      const backward: string[] = [];
      page = (await harness.graphql<MessagesPage>(MESSAGES, { chatId, input: { limit: 5, isBefore: true } }, fullKey))
        .body.data?.getMessages;
      backward.unshift(...(page?.data.map((m) => m.text) ?? []));
      while (page?.hasPrevious) {
        page = (
          await harness.graphql<MessagesPage>(
            MESSAGES,
            { chatId, input: { limit: 5, isBefore: true, cursor: page.previousCursor } },
            fullKey,
          )
        ).body.data?.getMessages;
        backward.unshift(...(page?.data.map((m) => m.text) ?? []));
      }
      expect(backward).to.deep.equal(texts);
    });

    it('uses a default page size of 30', async () => {
      const chatId = await org.openChat();
      for (let i = 0; i < 31; i += 1) await harness.graphql(SEND, { chatId, text: `m${i}` }, fullKey);
      const page = (await harness.graphql<MessagesPage>(MESSAGES, { chatId }, fullKey)).body.data?.getMessages;
      expect(page?.data).to.have.length(30);
      expect(page?.hasNext).to.equal(true);
    });

    it('keeps internal notes invisible and uncounted without NOTES_WRITE', async () => {
      const chatId = await org.openChat();
      await harness.graphql(SEND, { chatId, text: 'public 1' }, fullKey);
      await harness.graphql(SEND, { chatId, text: 'private note', internal: true }, fullKey);
      await harness.graphql(SEND, { chatId, text: 'public 2' }, fullKey);
      const reader = (await org.mintKey([ApiScope.MESSAGES_READ])).key;
      const page = (await harness.graphql<MessagesPage>(MESSAGES, { chatId, input: { limit: 2 } }, reader)).body.data
        ?.getMessages;
      expect(page?.data.map((m) => m.text)).to.deep.equal(['public 1', 'public 2']);
      expect(page?.hasNext).to.equal(false);
      const writer = (await harness.graphql<MessagesPage>(MESSAGES, { chatId, input: { limit: 10 } }, fullKey)).body
        .data?.getMessages;
      expect(writer?.data.map((m) => m.text)).to.deep.equal(['public 1', 'private note', 'public 2']);
    });

    it('answers BAD_USER_INPUT for an out-of-range limit and NOT_FOUND for an unknown chat', async () => {
      const chatId = await org.openChat();
      expectError(await harness.graphql(MESSAGES, { chatId, input: { limit: 1000 } }, fullKey), 200, 'BAD_USER_INPUT');
      expectError(await harness.graphql(CHAT, { chatId: '0123456789abcdef01234567' }, fullKey), 200, 'NOT_FOUND');
    });

    it('answers GRAPHQL_VALIDATION_FAILED for a field that does not exist, without suggestions', async () => {
      const response = await harness.graphql('{ chat(chatId: "x") { _id nonexistentField } }', {}, fullKey);
      expect(response.body.errors?.[0]?.extensions?.code).to.equal('GRAPHQL_VALIDATION_FAILED');
      expect(response.body.errors?.[0]?.message).not.to.match(/Did you mean/);
    });
  });

  describe('chats', () => {
    it('closes and reopens a chat', async () => {
      const chatId = await org.openChat();
      const closed = await harness.graphql<{ closeChat: { status: string } }>(
        'mutation($id: String!) { closeChat(chatId: $id) { status closedAt } }',
        { id: chatId },
        fullKey,
      );
      expect(closed.body.data?.closeChat.status).to.equal('CLOSED');
      const reopened = await harness.graphql<{ reopenChat: { status: string } }>(
        'mutation($id: String!) { reopenChat(chatId: $id) { status } }',
        { id: chatId },
        fullKey,
      );
      expect(reopened.body.data?.reopenChat.status).to.equal('OPEN');
    });

    it('pages searchChats newest first', async () => {
      const other = await harness.newOrg('Search Co');
      const key = (await other.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push(await other.openChat({ name: `Person ${i}` }));
      const seen: string[] = [];
      let cursor: string | null | undefined;
      for (;;) {
        const response = await harness.graphql<{
          searchChats: { data: { _id: string }[]; nextCursor: string | null; hasNext: boolean };
        }>(
          'query($input: PaginateMessagesInput) { searchChats(input: $input) { data { _id } nextCursor hasNext } }',
          { input: { limit: 2, cursor } },
          key,
        );
        const page = response.body.data?.searchChats;
        seen.push(...(page?.data.map((c) => c._id) ?? []));
        if (!page?.hasNext) break;
        cursor = page.nextCursor;
      }
      expect(seen).to.deep.equal([...ids].reverse());
    });
  });

  describe('PII masking', () => {
    it("returns the chat contact's personal fields as null without PII_READ", async () => {
      const chatId = await org.openChat({ name: 'Grace Hopper', email: 'grace@example.com', phone: '+15550100200' });
      const masked = (await org.mintKey([ApiScope.MESSAGES_READ])).key;
      const withoutPii = await harness.graphql<{ chat: { contact: Record<string, string | null> } }>(
        CHAT,
        { chatId },
        masked,
      );
      expect(withoutPii.body.errors).to.equal(undefined);
      expect(withoutPii.body.data?.chat.contact).to.deep.include({ name: null, email: null, phone: null });
      expect(withoutPii.body.data?.chat.contact._id).to.match(/^[0-9a-f]{24}$/);
      const withPii = await harness.graphql<{ chat: { contact: Record<string, string | null> } }>(
        CHAT,
        { chatId },
        fullKey,
      );
      expect(withPii.body.data?.chat.contact).to.deep.include({
        name: 'Grace Hopper',
        email: 'grace@example.com',
        phone: '+15550100200',
      });
    });

    it('masks through aliases and fragments too', async () => {
      const chatId = await org.openChat({ email: 'hidden@example.com' });
      const masked = (await org.mintKey([ApiScope.MESSAGES_READ])).key;
      const response = await harness.graphql<{ c: { contact: { mail: string | null } } }>(
        'query($chatId: String!) { c: chat(chatId: $chatId) { ...F } } fragment F on Chat { contact { mail: email } }',
        { chatId },
        masked,
      );
      expect(response.body.data?.c.contact.mail).to.equal(null);
    });
  });

  describe('org isolation', () => {
    it('shows a key of org B nothing of org A', async () => {
      const chatId = await org.openChat();
      await harness.graphql(SEND, { chatId, text: 'for org A only' }, fullKey);
      const orgB = await harness.newOrg('Other Co');
      const keyB = (await orgB.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
      expectError(await harness.graphql(CHAT, { chatId }, keyB), 200, 'NOT_FOUND');
      expectError(await harness.graphql(MESSAGES, { chatId }, keyB), 200, 'NOT_FOUND');
      expectError(await harness.graphql(SEND, { chatId, text: 'intrusion' }, keyB), 200, 'NOT_FOUND');
      const search = await harness.graphql<{ searchChats: { data: unknown[] } }>(
        '{ searchChats { data { _id } } }',
        {},
        keyB,
      );
      expect(search.body.data?.searchChats.data).to.deep.equal([]);
    });
  });

  describe('team', () => {
    it('lists members with TEAM_READ and adds an agent with TEAM_MANAGE, never an admin', async () => {
      const key = (await org.mintKey([ApiScope.TEAM_READ, ApiScope.TEAM_MANAGE])).key;
      const added = await harness.graphql<{
        addOrgMemberDirect: { member: { id: string; role: string }; oneTimePassword: string };
      }>(
        'mutation($e: String!) { addOrgMemberDirect(input: { email: $e, name: "Agent A", role: AGENT }) { member { id role } oneTimePassword } }',
        { e: `agent-${Date.now()}@example.com` },
        key,
      );
      expect(added.body.data?.addOrgMemberDirect.member.role).to.equal('AGENT');
      const admin = await harness.graphql(
        'mutation { addOrgMemberDirect(input: { email: "boss@example.com", role: ADMIN }) { member { id } } }',
        {},
        key,
      );
      expect(admin.body.errors?.[0]?.extensions?.code).to.equal('FORBIDDEN');
      const list = await harness.graphql<{ orgTeamMembers: { role: string }[] }>(
        '{ orgTeamMembers { id role email } }',
        {},
        key,
      );
      expect(list.body.data?.orgTeamMembers.map((m) => m.role)).to.include.members(['OWNER', 'AGENT']);
    });
  });
});

describe('events (outbox → bus)', function () {
  const harness = new StackHarness();

  before(async function () {
    this.timeout(120_000);
    await harness.start();
  });

  after(async () => harness.stop());

  it('publishes one message.created event for a message sent through GraphQL', async () => {
    const org = await harness.newOrg();
    const key = (await org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
    const chatId = await org.openChat();
    const seen: Envelope[] = [];
    const prefix = harness.stack.config.KAFKA_TOPIC_PREFIX;
    const subscription = await harness.stack.bus.subscribe({
      groupId: `e2e-observer-${newId()}`,
      topics: [`${prefix}svc.inbox.messages.v1`],
      fromBeginning: true,
      handle: async (record) => {
        const envelope = Envelope.decode(record.value);
        if (envelope.orgId === org.id) seen.push(envelope);
      },
    });
    try {
      const sent = await harness.graphql<{ sendMessage: { _id: string } }>(SEND, { chatId, text: 'event please' }, key);
      const messageId = sent.body.data?.sendMessage._id;
      const event = await eventually(
        async () => seen.find((e) => e.message?.messageId === messageId),
        30_000,
        'message.created event',
      );
      expect(event.type).to.equal('message.created');
      expect(event.message?.chatId).to.equal(chatId);
      expect(event.id).to.match(/^[0-9a-f]{24}$/);
      expect(seen.filter((e) => e.message?.messageId === messageId)).to.have.length(1);
    } finally {
      await subscription.stop();
    }
  });
});
