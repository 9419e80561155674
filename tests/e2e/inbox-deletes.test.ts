import { expect } from 'chai';
import { ApiScope, eventually, newId } from '@svc/kit';
import { ALL_SCOPES_BUT_PARTNER } from '../support/stack-harness';
import { dataOf, expectError, inboxSuite } from './inbox-fixtures';

const DELETE_CHAT = 'mutation($c: String!) { apiDeleteChat(chatId: $c) { chatId } }';
const DELETE_CONVERSATION = `mutation($c: String!, $r: Boolean) {
  apiDeleteConversation(conversationId: $c, removePeople: $r) { conversationId deletedChatIds contactEraseRequested } }`;

describe('Inbox deletes (whole stack over HTTP)', function () {
  const inbox = inboxSuite({ observe: ['svc.inbox.chats.v1'] });
  const { harness, seen } = inbox;

  const gql = <T>(query: string, variables: Record<string, unknown> = {}, as = inbox.key) =>
    harness.graphql<T>(query, variables, as).then(dataOf);

  /** A conversation with two threads, a message with a reaction, a label and an edit, and a read position. */
  async function populated() {
    const contactId = newId();
    const first = await inbox.channels.openChat({ contactId });
    const second = await inbox.channels.openChat({ contactId });
    await inbox.channels.receive(first._id, 'hello there');
    const sent = await gql<{ sendMessage: { _id: string } }>(
      'mutation($c: String!) { sendMessage(chatId: $c, input: { text: "reply" }) { _id } }',
      { c: first._id },
    );
    const messageId = sent.sendMessage._id;
    await gql('mutation($m: String!) { updateMessage(messageId: $m, text: "edited reply") { _id } }', { m: messageId });
    await gql('mutation($m: String!) { addMessageReaction(messageId: $m, emoji: "👍") { _id } }', { m: messageId });
    const label = await gql<{ createLabel: { _id: string } }>(
      `mutation { createLabel(input: { name: "l-${newId()}" }) { _id } }`,
    );
    await gql('mutation($m: String!, $l: [String!]!) { setMessageLabels(messageId: $m, labelIds: $l) { _id } }', {
      m: messageId,
      l: [label.createLabel._id],
    });
    await gql('mutation($c: String!) { readAllMessages(chatId: $c) { _id } }', { c: first._id });
    return { conversationId: first.conversationId, chatIds: [first._id, second._id], messageId };
  }

  describe('Inbox.apiDeleteChat', () => {
    it('deletes the thread and everything in it; the conversation and its other thread stay', async () => {
      const world = await populated();
      const [deleted, kept] = world.chatIds as [string, string];
      expect(
        (await gql<{ apiDeleteChat: { chatId: string } }>(DELETE_CHAT, { c: deleted })).apiDeleteChat.chatId,
      ).to.equal(deleted);
      expectError(
        await harness.graphql('query($c: String!) { chat(chatId: $c) { _id } }', { c: deleted }, inbox.key),
        200,
        'NOT_FOUND',
      );
      expectError(
        await harness.graphql(
          'mutation($m: String!) { deleteMessage(messageId: $m) { _id } }',
          { m: world.messageId },
          inbox.key,
        ),
        200,
        'NOT_FOUND',
      );
      const search = await gql<{ apiSearchMessages: { data: unknown[] } }>(
        '{ apiSearchMessages(query: "edited reply") { data { _id } } }',
      );
      expect(search.apiSearchMessages.data).to.deep.equal([]);
      const conversation = await gql<{ conversation: { threadCount: number } }>(
        'query($c: String!) { conversation(conversationId: $c) { threadCount } }',
        { c: world.conversationId },
      );
      expect(conversation.conversation.threadCount).to.equal(1);
      await gql('query($c: String!) { chat(chatId: $c) { _id } }', { c: kept });
      await eventually(
        async () => seen.find((e) => e.type === 'chat.deleted' && e.chat?.chatId === deleted),
        30_000,
        'chat.deleted',
      );
    });

    it('needs CONVERSATIONS_DELETE, which CONVERSATIONS_MANAGE does not imply', async () => {
      const world = await populated();
      const manager = (await inbox.org.mintKey([ApiScope.MESSAGES_READ, ApiScope.CONVERSATIONS_MANAGE])).key;
      const response = await harness.graphql(DELETE_CHAT, { c: world.chatIds[0] }, manager);
      expectError(response, 403, 'FORBIDDEN');
      expect(response.body.errors?.[0]?.extensions?.scope).to.equal(ApiScope.CONVERSATIONS_DELETE);
    });
  });

  describe('Inbox.apiDeleteConversation', () => {
    it('deletes the conversation with its threads, without asking to erase the person by default', async () => {
      const world = await populated();
      const result = await gql<{ apiDeleteConversation: { deletedChatIds: string[]; contactEraseRequested: boolean } }>(
        DELETE_CONVERSATION,
        { c: world.conversationId },
      );
      expect(result.apiDeleteConversation.deletedChatIds).to.have.members(world.chatIds);
      expect(result.apiDeleteConversation.contactEraseRequested).to.equal(false);
      expectError(
        await harness.graphql(
          'query($c: String!) { conversation(conversationId: $c) { _id } }',
          { c: world.conversationId },
          inbox.key,
        ),
        200,
        'NOT_FOUND',
      );
      for (const chatId of world.chatIds)
        expectError(
          await harness.graphql('query($c: String!) { chat(chatId: $c) { _id } }', { c: chatId }, inbox.key),
          200,
          'NOT_FOUND',
        );
      await eventually(
        async () =>
          seen.find(
            (e) => e.type === 'conversation.deleted' && e.conversation?.conversationId === world.conversationId,
          ),
        30_000,
        'conversation.deleted',
      );
      expect(
        seen.filter(
          (e) =>
            e.type === 'conversation.contact_erase_requested' &&
            e.conversation?.conversationId === world.conversationId,
        ),
      ).to.have.length(0);
    });

    it('with removePeople: true needs CONTACTS_ERASE as well', async () => {
      const world = await populated();
      const withoutErase = (
        await inbox.org.mintKey(ALL_SCOPES_BUT_PARTNER.filter((s) => s !== ApiScope.CONTACTS_ERASE))
      ).key;
      const response = await harness.graphql(DELETE_CONVERSATION, { c: world.conversationId, r: true }, withoutErase);
      expectError(response, 403, 'FORBIDDEN');
      expect(response.body.errors?.[0]?.extensions?.scope).to.equal(ApiScope.CONTACTS_ERASE);
      await gql('query($c: String!) { conversation(conversationId: $c) { _id } }', { c: world.conversationId });
    });
  });
});
