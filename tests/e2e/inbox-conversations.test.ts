import { expect } from 'chai';
import { ApiScope, newId } from '@svc/kit';
import { ALL_SCOPES_BUT_PARTNER } from '../support/stack-harness';
import { CHAT_FIELDS, CONVERSATION_FIELDS, dataOf, expectError, inboxSuite, PAGE, type Page } from './inbox-fixtures';

interface Chat {
  _id: string;
  conversationId: string;
  status: string;
  priority: string;
  category: string | null;
  subject: string | null;
  assigneeId: string | null;
  collectionId: string | null;
  unreadCount: number;
}
interface Conversation {
  _id: string;
  blocked: boolean;
  aiEnabled: boolean;
  unreadCount: number;
  threadCount: number;
  openThreadCount: number;
}

describe('Inbox conversations and threads (whole stack over HTTP)', function () {
  const inbox = inboxSuite();
  const { harness } = inbox;

  const gql = <T>(query: string, variables: Record<string, unknown> = {}, as = inbox.key) =>
    harness.graphql<T>(query, variables, as).then((r) => dataOf(r));
  const chat = (chatId: string, as = inbox.key) =>
    gql<{ chat: Chat }>(`query($id: String!) { chat(chatId: $id) { ${CHAT_FIELDS} } }`, { id: chatId }, as).then(
      (d) => d.chat,
    );
  const conversation = (id: string, as = inbox.key) =>
    gql<{ conversation: Conversation }>(
      `query($id: String!) { conversation(conversationId: $id) { ${CONVERSATION_FIELDS} } }`,
      { id },
      as,
    ).then((d) => d.conversation);

  describe('Inbox.conversation / threadsPage / conversationMessages', () => {
    it('returns one conversation per contact with its threads on every channel, messages merged in time order', async () => {
      const contactId = newId();
      const first = await inbox.channels.openChat({ contactId });
      const second = await inbox.channels.openChat({ contactId });
      expect(second.conversationId).to.equal(first.conversationId);
      await inbox.channels.receive(first._id, 'one');
      await inbox.channels.receive(second._id, 'two');
      await inbox.channels.receive(first._id, 'three');
      const view = await conversation(first.conversationId);
      expect(view).to.include({ threadCount: 2, openThreadCount: 2, unreadCount: 3, blocked: false, aiEnabled: false });
      const threads = await gql<{ threadsPage: Page<{ _id: string }> }>(
        `query($id: String!) { threadsPage(conversationId: $id, input: { limit: 1 }) ${PAGE('_id')} }`,
        { id: first.conversationId },
      );
      expect(threads.threadsPage.data.map((c) => c._id)).to.deep.equal([second._id]);
      expect(threads.threadsPage.hasNext).to.equal(true);
      const messages = await gql<{ conversationMessages: Page<{ text: string; chatId: string }> }>(
        `query($id: String!) { conversationMessages(conversationId: $id) ${PAGE('text chatId')} }`,
        { id: first.conversationId },
      );
      expect(messages.conversationMessages.data.map((m) => m.text)).to.deep.equal(['one', 'two', 'three']);
    });
  });

  describe('Inbox.readMessages / readAllMessages / readAllConversation', () => {
    it('keeps a read position per reader and counts unread inbound messages after it', async () => {
      const opened = await inbox.channels.openChat();
      const a = await inbox.channels.receive(opened._id, 'a');
      await inbox.channels.receive(opened._id, 'b');
      await inbox.channels.receive(opened._id, 'c');
      const otherReader = (await inbox.org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
      const read = await gql<{ readMessages: Chat }>(
        `mutation($chatId: String!, $ids: [String!]!) { readMessages(chatId: $chatId, messageIds: $ids) { ${CHAT_FIELDS} } }`,
        { chatId: opened._id, ids: [a._id] },
      );
      expect(read.readMessages.unreadCount).to.equal(2);
      expect((await chat(opened._id, otherReader)).unreadCount).to.equal(3);
      const all = await gql<{ readAllMessages: Chat }>(
        `mutation($chatId: String!) { readAllMessages(chatId: $chatId) { ${CHAT_FIELDS} } }`,
        { chatId: opened._id },
      );
      expect(all.readAllMessages.unreadCount).to.equal(0);
      // Reading an older message again never moves the position back.
      const again = await gql<{ readMessages: Chat }>(
        `mutation($chatId: String!, $ids: [String!]!) { readMessages(chatId: $chatId, messageIds: $ids) { unreadCount } }`,
        { chatId: opened._id, ids: [a._id] },
      );
      expect(again.readMessages.unreadCount).to.equal(0);
    });

    it('marks every thread of a conversation read', async () => {
      const contactId = newId();
      const first = await inbox.channels.openChat({ contactId });
      const second = await inbox.channels.openChat({ contactId });
      await inbox.channels.receive(first._id, 'x');
      await inbox.channels.receive(second._id, 'y');
      const result = await gql<{ readAllConversation: Conversation }>(
        `mutation($id: String!) { readAllConversation(conversationId: $id) { ${CONVERSATION_FIELDS} } }`,
        { id: first.conversationId },
      );
      expect(result.readAllConversation.unreadCount).to.equal(0);
      expect((await chat(second._id)).unreadCount).to.equal(0);
    });

    it('answers NOT_FOUND for a message of another chat', async () => {
      const one = await inbox.channels.openChat();
      const two = await inbox.channels.openChat();
      const message = await inbox.channels.receive(two._id, 'elsewhere');
      expectError(
        await harness.graphql(
          'mutation($chatId: String!, $ids: [String!]!) { readMessages(chatId: $chatId, messageIds: $ids) { _id } }',
          { chatId: one._id, ids: [message._id] },
          inbox.key,
        ),
        200,
        'NOT_FOUND',
      );
    });
  });

  describe('Inbox.assignChatToOperator / unassignChat / assignConversationThreads', () => {
    const ASSIGN = `mutation($chatId: String!, $op: String!) { assignChatToOperator(chatId: $chatId, operatorId: $op) { ${CHAT_FIELDS} } }`;
    const ASSIGN_THREADS =
      'mutation($id: String!, $op: String!) { assignConversationThreads(conversationId: $id, operatorId: $op) { _id } }';

    it('assigns and unassigns a thread, and assigns every open thread of a conversation', async () => {
      const operator = await inbox.org.addMember();
      const contactId = newId();
      const first = await inbox.channels.openChat({ contactId });
      const second = await inbox.channels.openChat({ contactId });
      const assigned = await gql<{ assignChatToOperator: Chat }>(
        `mutation($chatId: String!, $op: String!) { assignChatToOperator(chatId: $chatId, operatorId: $op) { ${CHAT_FIELDS} } }`,
        { chatId: first._id, op: operator },
      );
      expect(assigned.assignChatToOperator.assigneeId).to.equal(operator);
      const unassigned = await gql<{ unassignChat: Chat }>(
        `mutation($chatId: String!) { unassignChat(chatId: $chatId) { ${CHAT_FIELDS} } }`,
        { chatId: first._id },
      );
      expect(unassigned.unassignChat.assigneeId).to.equal(null);
      await gql(
        'mutation($id: String!, $op: String!) { assignConversationThreads(conversationId: $id, operatorId: $op) { _id } }',
        {
          id: first.conversationId,
          op: operator,
        },
      );
      expect((await chat(first._id)).assigneeId).to.equal(operator);
      expect((await chat(second._id)).assigneeId).to.equal(operator);
    });

    it("answers NOT_FOUND naming operatorId for an id that is no member, another org's member or a removed one", async () => {
      const other = await harness.newOrg('Other');
      const removed = await inbox.org.addMember('Gone Agent');
      await inbox.org.removeMember(removed);
      const opened = await inbox.channels.openChat();
      for (const operator of [newId(), await other.addMember(), removed]) {
        for (const [query, variables] of [
          [ASSIGN, { chatId: opened._id, op: operator }],
          [ASSIGN_THREADS, { id: opened.conversationId, op: operator }],
        ] as const) {
          const response = await harness.graphql(query, variables, inbox.key);
          expectError(response, 200, 'NOT_FOUND');
          expect(response.body.errors?.[0]?.extensions?.field).to.equal('operatorId');
          expect(response.body.errors?.[0]?.message).to.equal('operator not found: not a member of this org');
        }
      }
      expect((await chat(opened._id)).assigneeId).to.equal(null);
    });

    it('keeps the assignee when a later assignment is refused, and answers BAD_USER_INPUT for a malformed id', async () => {
      const operator = await inbox.org.addMember();
      const opened = await inbox.channels.openChat();
      await gql(ASSIGN, { chatId: opened._id, op: operator });
      expectError(await harness.graphql(ASSIGN, { chatId: opened._id, op: newId() }, inbox.key), 200, 'NOT_FOUND');
      const malformed = await harness.graphql(ASSIGN, { chatId: opened._id, op: 'olive' }, inbox.key);
      expectError(malformed, 200, 'BAD_USER_INPUT');
      expect(malformed.body.errors?.[0]?.extensions?.field).to.equal('operatorId');
      expect((await chat(opened._id)).assigneeId).to.equal(operator);
    });

    it('lets the org owner (a member) be assigned from a dashboard session too', async () => {
      const members = await gql<{ orgTeamMembers: { id: string; email: string | null }[] }>(
        '{ orgTeamMembers { id email } }',
        {},
        inbox.org.sessionToken,
      );
      const ownerId = members.orgTeamMembers.find((m) => m.email === inbox.org.ownerEmail)?.id ?? '';
      const opened = await inbox.channels.openChat();
      const assigned = await gql<{ assignChatToOperator: Chat }>(
        ASSIGN,
        { chatId: opened._id, op: ownerId },
        inbox.org.sessionToken,
      );
      expect(assigned.assignChatToOperator.assigneeId).to.equal(ownerId);
    });
  });

  describe('Inbox.updateChatField', () => {
    const update = (chatId: string, field: string, value: unknown) =>
      harness.graphql<{ updateChatField: Chat }>(
        `mutation($chatId: String!, $field: ChatField!, $value: JSON) { updateChatField(chatId: $chatId, input: { field: $field, value: $value }) { ${CHAT_FIELDS} } }`,
        { chatId, field, value },
        inbox.key,
      );

    it('sets status, priority, category, subject and collection, each validated for its type', async () => {
      const opened = await inbox.channels.openChat();
      expect(dataOf(await update(opened._id, 'PRIORITY', 'URGENT')).updateChatField.priority).to.equal('URGENT');
      expect(dataOf(await update(opened._id, 'CATEGORY', 'billing')).updateChatField.category).to.equal('billing');
      expect(dataOf(await update(opened._id, 'SUBJECT', 'Refund')).updateChatField.subject).to.equal('Refund');
      expect(dataOf(await update(opened._id, 'CATEGORY', null)).updateChatField.category).to.equal(null);
      expect(dataOf(await update(opened._id, 'STATUS', 'CLOSED')).updateChatField.status).to.equal('CLOSED');
      const collection = dataOf(
        await harness.graphql<{ apiCreateChatCollection: { _id: string } }>(
          'mutation { apiCreateChatCollection(input: { name: "VIP" }) { _id } }',
          {},
          inbox.key,
        ),
      ).apiCreateChatCollection;
      expect(dataOf(await update(opened._id, 'COLLECTION', collection._id)).updateChatField.collectionId).to.equal(
        collection._id,
      );
    });

    it('answers BAD_USER_INPUT for a value of the wrong type and NOT_FOUND for an unknown collection', async () => {
      const opened = await inbox.channels.openChat();
      expectError(await update(opened._id, 'PRIORITY', 3), 200, 'BAD_USER_INPUT');
      expectError(await update(opened._id, 'STATUS', 'SNOOZED'), 200, 'BAD_USER_INPUT');
      expectError(await update(opened._id, 'SUBJECT', 'x'.repeat(201)), 200, 'BAD_USER_INPUT');
      expectError(await update(opened._id, 'COLLECTION', newId()), 200, 'NOT_FOUND');
    });
  });

  describe('Inbox.blockConversation / setConversationAi', () => {
    it('blocks a contact (closing its threads, which its new messages do not reopen) and unblocks it', async () => {
      const opened = await inbox.channels.openChat();
      const blocked = await gql<{ blockConversation: Conversation }>(
        `mutation($id: String!) { blockConversation(conversationId: $id) { ${CONVERSATION_FIELDS} } }`,
        { id: opened.conversationId },
      );
      expect(blocked.blockConversation).to.include({ blocked: true, openThreadCount: 0 });
      await inbox.channels.receive(opened._id, 'let me in');
      expect((await chat(opened._id)).status).to.equal('CLOSED');
      const unblocked = await gql<{ blockConversation: Conversation }>(
        `mutation($id: String!) { blockConversation(conversationId: $id, blocked: false) { blocked } }`,
        { id: opened.conversationId },
      );
      expect(unblocked.blockConversation.blocked).to.equal(false);
      await inbox.channels.receive(opened._id, 'hello again');
      expect((await chat(opened._id)).status).to.equal('OPEN');
    });

    it('toggles the AI assistant', async () => {
      const opened = await inbox.channels.openChat();
      const on = await gql<{ setConversationAi: Conversation }>(
        'mutation($id: String!) { setConversationAi(conversationId: $id, enabled: true) { aiEnabled } }',
        { id: opened.conversationId },
      );
      expect(on.setConversationAi.aiEnabled).to.equal(true);
      expect((await conversation(opened.conversationId)).aiEnabled).to.equal(true);
    });
  });

  describe('Inbox.conversation PII', () => {
    it("masks the conversation contact's personal fields without PII_READ", async () => {
      const opened = await inbox.channels.openChat({ name: 'Grace Hopper' });
      const reader = (await inbox.org.mintKey([ApiScope.MESSAGES_READ])).key;
      const view = await gql<{ conversation: { contact: { name: string | null; email: string | null } } }>(
        'query($id: String!) { conversation(conversationId: $id) { contact { _id name email } } }',
        { id: opened.conversationId },
        reader,
      );
      expect(view.conversation.contact).to.include({ name: null, email: null });
    });
  });
});
