import { expect } from 'chai';
import { status, type Metadata } from '@grpc/grpc-js';
import {
  ApiScope,
  dropTestDatabase,
  grpcClient,
  newId,
  systemPrincipal,
  testEnv,
  unary,
  type Principal,
  type Subscription,
  rejection,
  apiKeyPrincipal,
  eventually,
  callerMetadata,
} from '@svc/kit';
import { IdentityForTests, type IdentityTestOrg } from '@svc/identity';
import { Envelope } from '@svc/proto/events/v1';
import { ChatStatus, DeliveryStatus, InboxServiceClient, type Message, type MessagePage } from '@svc/proto/inbox/v1';
import { CHATS_TOPIC, InboxApp, MEMBERS_TOPIC, inboxConfig } from '../src';

const EVERYTHING = [
  ApiScope.MESSAGES_READ,
  ApiScope.MESSAGES_SEND,
  ApiScope.CONVERSATIONS_MANAGE,
  ApiScope.NOTES_WRITE,
  ApiScope.PII_READ,
];

describe('InboxService', () => {
  let app: InboxApp;
  let client: InboxServiceClient;
  let identity: IdentityForTests;
  const as = (principal: Principal): Promise<Metadata> => callerMetadata(principal, 'inbox');

  before(async () => {
    const config = inboxConfig(testEnv('inbox'));
    // One JWKS, as in a deployment (kit testEnv): identity trusts the SYSTEM principal the inbox signs.
    identity = new IdentityForTests();
    await identity.start();
    // Nothing listens for contacts: an erasure (apiDeleteConversation removePeople) cannot be requested.
    app = new InboxApp(config, { identityAddress: () => identity.address, contactsAddress: () => '127.0.0.1:1' });
    await app.start();
    client = grpcClient(InboxServiceClient, `127.0.0.1:${app.grpcPort}`);
  });

  after(async () => {
    client.close();
    await app.stop();
    await identity.dispose();
    await dropTestDatabase(app.config.DB_URL);
  });

  const newOrg = () => identity.newOrg();

  async function newChat(orgId = newId(), name = 'Ada Lovelace') {
    const chat = await unary(
      client.openChat.bind(client),
      { channelId: newId(), contact: { _id: newId(), name, email: 'ada@example.com', phone: '+15550100' } },
      as(systemPrincipal(orgId)),
    );
    return { orgId, chat };
  }

  const send = (principal: Principal, chatId: string, text: string, internal = false) =>
    unary(client.sendMessage.bind(client), { chatId, input: { text, internal } }, as(principal));
  const page = (principal: Principal, chatId: string, input: { cursor?: string; isBefore?: boolean; limit: number }) =>
    unary(client.getMessages.bind(client), { chatId, input }, as(principal));

  describe('InboxService.SendMessage', () => {
    it('returns a queued message with a 24-hex id and a millisecond UTC timestamp', async () => {
      const { orgId, chat } = await newChat();
      const message = await send(apiKeyPrincipal(orgId, EVERYTHING), chat._id, 'hello');
      expect(message._id).to.match(/^[0-9a-f]{24}$/);
      expect(message.deliveryStatus).to.equal(DeliveryStatus.QUEUED);
      expect(message.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('refuses an internal note without NOTES_WRITE', async () => {
      const { orgId, chat } = await newChat();
      const error = await rejection(send(apiKeyPrincipal(orgId, [ApiScope.MESSAGES_SEND]), chat._id, 'psst', true));
      expect(error.code).to.equal(status.PERMISSION_DENIED);
    });

    it('answers INVALID_ARGUMENT for empty text and a malformed chat id, NOT_FOUND for an unknown chat', async () => {
      const { orgId, chat } = await newChat();
      const key = apiKeyPrincipal(orgId, EVERYTHING);
      expect((await rejection(send(key, chat._id, '   '))).code).to.equal(status.INVALID_ARGUMENT);
      expect((await rejection(send(key, 'nope', 'x'))).code).to.equal(status.INVALID_ARGUMENT);
      expect((await rejection(send(key, newId(), 'x'))).code).to.equal(status.NOT_FOUND);
    });
  });

  describe('InboxService.GetMessages', () => {
    it('pages forward and backward over the same messages without skipping or repeating', async () => {
      const { orgId, chat } = await newChat();
      const key = apiKeyPrincipal(orgId, EVERYTHING);
      const sent: Message[] = [];
      for (let i = 0; i < 23; i += 1) sent.push(await send(key, chat._id, `m${i}`));
      const forward: string[] = [];
      let current: MessagePage = await page(key, chat._id, { limit: 5 });
      forward.push(...current.data.map((m) => m.text));
      expect(current.hasPrevious).to.equal(false);
      while (current.hasNext) {
        current = await page(key, chat._id, { cursor: current.nextCursor ?? '', limit: 5 });
        forward.push(...current.data.map((m) => m.text));
      }
      expect(forward).to.deep.equal(sent.map((m) => m.text));
      const backward: string[] = [];
      current = await page(key, chat._id, { isBefore: true, limit: 5 });
      backward.unshift(...current.data.map((m) => m.text));
      expect(current.hasNext).to.equal(false);
      while (current.hasPrevious) {
        current = await page(key, chat._id, { cursor: current.previousCursor ?? '', isBefore: true, limit: 5 });
        backward.unshift(...current.data.map((m) => m.text));
      }
      expect(backward).to.deep.equal(forward);
    });

    it('picks up messages sent after the last page from its nextCursor', async () => {
      const { orgId, chat } = await newChat();
      const key = apiKeyPrincipal(orgId, EVERYTHING);
      await send(key, chat._id, 'first');
      const last = await page(key, chat._id, { limit: 10 });
      expect(last.hasNext).to.equal(false);
      await send(key, chat._id, 'second');
      const next = await page(key, chat._id, { cursor: last.nextCursor ?? '', limit: 10 });
      expect(next.data.map((m) => m.text)).to.deep.equal(['second']);
    });

    it('hides internal notes from a reader without NOTES_WRITE, not even counting them', async () => {
      const { orgId, chat } = await newChat();
      const writer = apiKeyPrincipal(orgId, EVERYTHING);
      await send(writer, chat._id, 'visible 1');
      await send(writer, chat._id, 'secret note', true);
      await send(writer, chat._id, 'visible 2');
      const reader = apiKeyPrincipal(orgId, [ApiScope.MESSAGES_READ]);
      const first = await page(reader, chat._id, { limit: 2 });
      expect(first.data.map((m) => m.text)).to.deep.equal(['visible 1', 'visible 2']);
      expect(first.hasNext).to.equal(false);
      const all = await page(writer, chat._id, { limit: 10 });
      expect(all.data.map((m) => m.text)).to.deep.equal(['visible 1', 'secret note', 'visible 2']);
    });

    it('answers INVALID_ARGUMENT for a limit out of range or a forged cursor', async () => {
      const { orgId, chat } = await newChat();
      const key = apiKeyPrincipal(orgId, EVERYTHING);
      expect((await rejection(page(key, chat._id, { limit: 1000 }))).code).to.equal(status.INVALID_ARGUMENT);
      expect((await rejection(page(key, chat._id, { cursor: 'garbage', limit: 5 }))).code).to.equal(
        status.INVALID_ARGUMENT,
      );
    });

    it("does not show one org's chat to another org", async () => {
      const { chat } = await newChat();
      const stranger = apiKeyPrincipal(newId(), EVERYTHING);
      expect((await rejection(page(stranger, chat._id, { limit: 5 }))).code).to.equal(status.NOT_FOUND);
    });
  });

  describe('InboxService.DeleteConversation', () => {
    const remove = (principal: Principal, conversationId: string, removePeople: boolean) =>
      unary(client.deleteConversation.bind(client), { conversationId, removePeople }, as(principal));

    it('with removePeople: true needs CONTACTS_ERASE, and deletes nothing while contacts cannot record the erasure', async () => {
      const { orgId, chat } = await newChat();
      const deleter = apiKeyPrincipal(orgId, [ApiScope.MESSAGES_READ, ApiScope.CONVERSATIONS_DELETE]);
      const eraser = apiKeyPrincipal(orgId, [...EVERYTHING, ApiScope.CONVERSATIONS_DELETE, ApiScope.CONTACTS_ERASE]);
      expect((await rejection(remove(deleter, chat.conversationId, true))).code).to.equal(status.PERMISSION_DENIED);
      const refused = await rejection(remove(eraser, chat.conversationId, true));
      expect(refused.code).to.equal(status.UNAVAILABLE);
      const kept = await unary(client.getChat.bind(client), { chatId: chat._id }, as(deleter));
      expect(kept._id).to.equal(chat._id);
      const deleted = await remove(deleter, chat.conversationId, false);
      expect(deleted).to.deep.include({ deletedChatIds: [chat._id], contactEraseRequested: false });
    });
  });

  describe('InboxService.CloseChat', () => {
    it('closes and reopens, and needs CONVERSATIONS_MANAGE', async () => {
      const { orgId, chat } = await newChat();
      const manager = apiKeyPrincipal(orgId, EVERYTHING);
      const closed = await unary(client.closeChat.bind(client), { chatId: chat._id }, as(manager));
      expect(closed.status).to.equal(ChatStatus.CLOSED);
      expect(closed.closedAt).to.be.a('string');
      const reopened = await unary(client.reopenChat.bind(client), { chatId: chat._id }, as(manager));
      expect(reopened.status).to.equal(ChatStatus.OPEN);
      const reader = apiKeyPrincipal(orgId, [ApiScope.MESSAGES_READ]);
      expect((await rejection(unary(client.closeChat.bind(client), { chatId: chat._id }, as(reader)))).code).to.equal(
        status.PERMISSION_DENIED,
      );
    });
  });

  describe('member.removed (svc.identity.members.v1)', () => {
    let watcher: Subscription;
    /** `chat.unassigned` events seen on the inbox's chats topic, by chat id. */
    const unassigned = new Map<string, number>();

    before(async () => {
      watcher = await app.bus.subscribe({
        groupId: `${app.config.KAFKA_TOPIC_PREFIX}test.unassigned.${newId()}`,
        topics: [app.config.KAFKA_TOPIC_PREFIX + CHATS_TOPIC],
        fromBeginning: true,
        handle: async (record) => {
          const envelope = Envelope.decode(record.value);
          if (envelope.type !== 'chat.unassigned' || !envelope.chat) return;
          unassigned.set(envelope.chat.chatId, (unassigned.get(envelope.chat.chatId) ?? 0) + 1);
        },
      });
    });

    after(async () => watcher.stop());

    /** As identity publishes it; `key` keeps test records on one partition, so they are handled in order. */
    const removed = (orgId: string, memberId: string, key: string, id = newId()) =>
      app.bus.publish([
        {
          topic: app.config.KAFKA_TOPIC_PREFIX + MEMBERS_TOPIC,
          key,
          value: Buffer.from(
            Envelope.encode({
              id,
              type: 'member.removed',
              requestContext: {},
              orgId,
              occurredAt: new Date().toISOString(),
              member: { memberId },
            }).finish(),
          ),
        },
      ]);
    const assigneeOf = async (principal: Principal, chatId: string) =>
      (await unary(client.getChat.bind(client), { chatId }, as(principal))).assigneeId ?? null;

    it("unassigns the removed member's open and closed chats once, emitting chat.unassigned, and no one else's", async () => {
      const org = await newOrg();
      const key = apiKeyPrincipal(org.id, EVERYTHING);
      const leaving = await org.addMember();
      const staying = await org.addMember();
      const open = (await newChat(org.id)).chat;
      const closed = (await newChat(org.id)).chat;
      const kept = (await newChat(org.id)).chat;
      const other = (await newChat(org.id)).chat;
      for (const chat of [open, closed]) {
        await unary(client.assignChatToOperator.bind(client), { chatId: chat._id, operatorId: leaving }, as(key));
      }
      await unary(client.closeChat.bind(client), { chatId: closed._id }, as(key));
      await unary(client.assignChatToOperator.bind(client), { chatId: kept._id, operatorId: staying }, as(key));
      await unary(client.assignChatToOperator.bind(client), { chatId: other._id, operatorId: staying }, as(key));
      // Another org's event naming the same member changes nothing here.
      const event = newId();
      await removed(newId(), leaving, leaving);
      await removed(org.id, leaving, leaving, event);
      await eventually(
        async () => unassigned.get(open._id) === 1 && unassigned.get(closed._id) === 1,
        10_000,
        'chat.unassigned for both chats',
      );
      expect(await assigneeOf(key, open._id)).to.equal(null);
      expect(await assigneeOf(key, closed._id)).to.equal(null);
      expect(await assigneeOf(key, kept._id)).to.equal(staying);

      // Redelivered, then a marker on the same partition: once the marker is handled, so is the redelivery.
      await removed(org.id, leaving, leaving, event);
      await removed(org.id, staying, leaving);
      await eventually(async () => unassigned.get(other._id) === 1, 10_000, 'the marker handled');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(unassigned.get(open._id)).to.equal(1);
      expect(unassigned.get(closed._id)).to.equal(1);
    });
  });

  describe('InboxService.AssignChatToOperator', () => {
    const assign = (principal: Principal, chatId: string, operatorId: string) =>
      unary(client.assignChatToOperator.bind(client), { chatId, operatorId }, as(principal));
    const assignThreads = (principal: Principal, conversationId: string, operatorId: string) =>
      unary(client.assignConversationThreads.bind(client), { conversationId, operatorId }, as(principal));
    const assigneeOf = async (principal: Principal, chatId: string) =>
      (await unary(client.getChat.bind(client), { chatId }, as(principal))).assigneeId ?? null;
    /** The gRPC status and the argument it names (`x-svc-error-field`). */
    const refusal = async (call: Promise<unknown>) => {
      const error = await rejection(call);
      return { code: error.code, field: error.metadata?.get('x-svc-error-field')[0] };
    };

    it('returns the chat assigned to a member of the org', async () => {
      const org = await newOrg();
      const { chat } = await newChat(org.id);
      const key = apiKeyPrincipal(org.id, EVERYTHING);
      const operatorId = await org.addMember();
      expect((await assign(key, chat._id, operatorId)).assigneeId).to.equal(operatorId);
      expect((await assign(key, chat._id, org.ownerId)).assigneeId).to.equal(org.ownerId);
    });

    it("answers NOT_FOUND naming operatorId for an unknown id, another org's member or a removed member", async () => {
      const org = await newOrg();
      const { chat } = await newChat(org.id);
      const key = apiKeyPrincipal(org.id, EVERYTHING);
      const removed = await org.addMember();
      await org.removeMember(removed);
      const elsewhere = await (await newOrg()).addMember();
      for (const operatorId of [newId(), elsewhere, removed]) {
        expect(await refusal(assign(key, chat._id, operatorId))).to.deep.equal({
          code: status.NOT_FOUND,
          field: 'operatorId',
        });
        expect(await refusal(assignThreads(key, chat.conversationId, operatorId))).to.deep.equal({
          code: status.NOT_FOUND,
          field: 'operatorId',
        });
      }
      expect(await assigneeOf(key, chat._id)).to.equal(null);
    });

    it('keeps the current assignee when the new one is refused', async () => {
      const org = await newOrg();
      const { chat } = await newChat(org.id);
      const key = apiKeyPrincipal(org.id, EVERYTHING);
      const member = await org.addMember();
      await assign(key, chat._id, member);
      expect((await refusal(assign(key, chat._id, newId()))).code).to.equal(status.NOT_FOUND);
      expect(await assigneeOf(key, chat._id)).to.equal(member);
    });

    it('assigns every open thread of the conversation to a member', async () => {
      const org = await newOrg();
      const { chat } = await newChat(org.id);
      const key = apiKeyPrincipal(org.id, EVERYTHING);
      const operatorId = await org.addMember();
      await assignThreads(key, chat.conversationId, operatorId);
      expect(await assigneeOf(key, chat._id)).to.equal(operatorId);
    });

    /**
     * Identity is stopped for good here (mocha runs these after the tests above). A call that reaches identity now
     * fails UNAVAILABLE, so any other answer proves the inbox refused without asking it.
     */
    describe('with identity stopped', () => {
      let org: IdentityTestOrg;
      let operatorId: string;
      let stranger: IdentityTestOrg;
      let strangerMemberId: string;

      before(async () => {
        org = await newOrg();
        operatorId = await org.addMember();
        stranger = await newOrg();
        strangerMemberId = await stranger.addMember();
        await identity.stop();
      });

      it('answers UNAVAILABLE and assigns nobody when identity cannot answer', async () => {
        const { chat } = await newChat(org.id);
        const key = apiKeyPrincipal(org.id, EVERYTHING);
        expect((await refusal(assign(key, chat._id, operatorId))).code).to.equal(status.UNAVAILABLE);
        expect(await assigneeOf(key, chat._id)).to.equal(null);
      });

      it('answers INVALID_ARGUMENT for an operator id that is not an id, without asking identity', async () => {
        const { chat } = await newChat(org.id);
        expect(await refusal(assign(apiKeyPrincipal(org.id, EVERYTHING), chat._id, 'olive'))).to.deep.equal({
          code: status.INVALID_ARGUMENT,
          field: 'operatorId',
        });
      });

      it("answers NOT_FOUND naming chatId for another org's chat before asking identity", async () => {
        const { chat } = await newChat(org.id);
        const intruder = apiKeyPrincipal(stranger.id, EVERYTHING);
        expect(await refusal(assign(intruder, chat._id, strangerMemberId))).to.deep.equal({
          code: status.NOT_FOUND,
          field: 'chatId',
        });
        expect(await refusal(assignThreads(intruder, chat.conversationId, strangerMemberId))).to.deep.equal({
          code: status.NOT_FOUND,
          field: 'conversationId',
        });
        expect(await assigneeOf(apiKeyPrincipal(org.id, EVERYTHING), chat._id)).to.equal(null);
      });

      it('refuses a key without CONVERSATIONS_MANAGE before asking identity', async () => {
        const { chat } = await newChat(org.id);
        const reader = apiKeyPrincipal(org.id, [ApiScope.MESSAGES_READ]);
        expect((await refusal(assign(reader, chat._id, operatorId))).code).to.equal(status.PERMISSION_DENIED);
      });
    });
  });

  describe('InboxService.SearchChats', () => {
    it("lists the org's chats newest first and filters by status and contact", async () => {
      const orgId = newId();
      const a = await newChat(orgId, 'Grace Hopper');
      const b = await newChat(orgId, 'Alan Turing');
      const key = apiKeyPrincipal(orgId, EVERYTHING);
      await unary(client.closeChat.bind(client), { chatId: a.chat._id }, as(key));
      const all = await unary(client.searchChats.bind(client), { input: { limit: 10 } }, as(key));
      expect(all.data.map((c) => c._id)).to.deep.equal([b.chat._id, a.chat._id]);
      const open = await unary(
        client.searchChats.bind(client),
        { status: ChatStatus.OPEN, input: { limit: 10 } },
        as(key),
      );
      expect(open.data.map((c) => c._id)).to.deep.equal([b.chat._id]);
      const byName = await unary(client.searchChats.bind(client), { query: 'hopper', input: { limit: 10 } }, as(key));
      expect(byName.data.map((c) => c._id)).to.deep.equal([a.chat._id]);
      const withoutPii = apiKeyPrincipal(orgId, [ApiScope.MESSAGES_READ]);
      const error = await rejection(
        unary(client.searchChats.bind(client), { query: 'hopper', input: { limit: 10 } }, as(withoutPii)),
      );
      expect(error.code).to.equal(status.PERMISSION_DENIED);
    });
  });
});
