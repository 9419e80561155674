import { expect } from 'chai';
import { ApiScope } from '@svc/kit';
import { ALL_SCOPES_BUT_PARTNER, StackHarness, type TestOrg } from '../support/stack-harness';
import { ChannelSimulator, MESSAGE_FIELDS, PAGE, dataOf, expectError, type Page } from './inbox-fixtures';

const NOTE_TEXT = 'secret-note-text';

describe('Inbox internal notes (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let noteKey: string;
  let chatId: string;
  let conversationId: string;
  let collectionId: string;
  const noteIds: string[] = [];

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg();
    noteKey = (await org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
    const chat = await new ChannelSimulator(harness, org).openChat();
    chatId = chat._id;
    conversationId = chat.conversationId;
    const gql = <T>(query: string, variables: Record<string, unknown>) =>
      harness.graphql<T>(query, variables, noteKey).then(dataOf);
    await gql('mutation($c: String!) { sendMessage(chatId: $c, input: { text: "visible" }) { _id } }', { c: chatId });
    const viaSend = await gql<{ sendMessage: { _id: string } }>(
      `mutation($c: String!) { sendMessage(chatId: $c, input: { text: "${NOTE_TEXT} 1", internal: true }) { _id } }`,
      { c: chatId },
    );
    const viaNote = await gql<{ sendConversationNote: { _id: string; internal: boolean } }>(
      `mutation($c: String!) { sendConversationNote(conversationId: $c, input: { text: "${NOTE_TEXT} 2" }) { _id internal } }`,
      { c: conversationId },
    );
    expect(viaNote.sendConversationNote.internal).to.equal(true);
    noteIds.push(viaSend.sendMessage._id, viaNote.sendConversationNote._id);
    collectionId = (
      await gql<{ apiCreateChatCollection: { _id: string } }>(
        'mutation { apiCreateChatCollection(input: { name: "All" }) { _id } }',
        {},
      )
    ).apiCreateChatCollection._id;
    await gql(
      'mutation($c: String!, $v: JSON) { updateChatField(chatId: $c, input: { field: COLLECTION, value: $v }) { _id } }',
      { c: chatId, v: collectionId },
    );
  });

  after(async () => harness.stop());

  describe('Inbox.getChatNotes / conversationNotes / sendConversationNote', () => {
    it('returns only the notes, with NOTES_WRITE', async () => {
      const chatNotes = await harness
        .graphql<{ getChatNotes: Page<{ _id: string; internal: boolean }> }>(
          `query($c: String!) { getChatNotes(chatId: $c) ${PAGE('_id internal')} }`,
          { c: chatId },
          noteKey,
        )
        .then(dataOf);
      expect(chatNotes.getChatNotes.data.map((m) => m._id)).to.deep.equal(noteIds);
      const conversationNotes = await harness
        .graphql<{ conversationNotes: Page<{ _id: string }> }>(
          `query($c: String!) { conversationNotes(conversationId: $c) ${PAGE('_id')} }`,
          { c: conversationId },
          noteKey,
        )
        .then(dataOf);
      expect(conversationNotes.conversationNotes.data.map((m) => m._id)).to.deep.equal(noteIds);
    });

    it('answers BAD_USER_INPUT for an empty note', async () => {
      expectError(
        await harness.graphql(
          'mutation($c: String!) { sendConversationNote(conversationId: $c, input: { text: "  " }) { _id } }',
          { c: conversationId },
          noteKey,
        ),
        200,
        'BAD_USER_INPUT',
      );
    });
  });

  describe('search with NOTES_WRITE', () => {
    it('finds the notes (the control for the walk below)', async () => {
      const found = await harness
        .graphql<{ apiSearchMessages: Page<{ _id: string }> }>(
          `{ apiSearchMessages(query: "secret note") ${PAGE('_id')} }`,
          {},
          noteKey,
        )
        .then(dataOf);
      expect(found.apiSearchMessages.data.map((m) => m._id)).to.have.members(noteIds);
    });
  });

  describe('without NOTES_WRITE', () => {
    it('no read of the API shows, counts or reaches a note', async () => {
      const scopes = ALL_SCOPES_BUT_PARTNER.filter((s) => s !== ApiScope.NOTES_WRITE);
      const key = (await org.mintKey(scopes)).key;
      const reads: [string, Record<string, unknown>][] = [
        [`query($c: String!) { chat(chatId: $c) { _id unreadCount lastMessageAt } }`, { c: chatId }],
        [`query($c: String!) { getMessages(chatId: $c) ${PAGE(MESSAGE_FIELDS)} }`, { c: chatId }],
        [
          `query($c: String!) { getMessages(chatId: $c, input: { isBefore: true, limit: 1 }) ${PAGE(MESSAGE_FIELDS)} }`,
          { c: chatId },
        ],
        [
          `query($c: String!) { conversationMessages(conversationId: $c) ${PAGE(MESSAGE_FIELDS)} }`,
          { c: conversationId },
        ],
        [`query($c: String!) { conversation(conversationId: $c) { _id unreadCount } }`, { c: conversationId }],
        [`query($c: String!) { threadsPage(conversationId: $c) ${PAGE('_id unreadCount')} }`, { c: conversationId }],
        [`{ searchChats ${PAGE('_id unreadCount')} }`, {}],
        [`query($c: String!) { collectionChats(collectionId: $c) ${PAGE('_id unreadCount')} }`, { c: collectionId }],
        [
          `query($c: String!) { collectionConversations(collectionId: $c) ${PAGE('_id unreadCount')} }`,
          { c: collectionId },
        ],
        ['query($c: String!) { collectionChatCount(collectionId: $c) { total open } }', { c: collectionId }],
        ['{ chatCollectionCounts { data { collectionId total open unread } uncollectedTotal } }', {}],
        [`{ labels ${PAGE('_id')} }`, {}],
        [`{ apiSearchMessages(query: "secret note") ${PAGE(MESSAGE_FIELDS)} }`, {}],
        [
          `query($c: String!) { apiSearchChatMessages(chatId: $c, query: "secret") ${PAGE(MESSAGE_FIELDS)} }`,
          { c: chatId },
        ],
        [`{ searchConversations(query: "secret") { data { _id unreadCount } totalCount hasNext } }`, {}],
        ['{ inboxCounts { total open unread openUnread byAssignee { assigneeId open } } }', {}],
        // Notes are text only (no media), so the media reads cannot reach one either.
        [`query($c: String!) { getChatMedia(chatId: $c) ${PAGE('_id messageId')} }`, { c: chatId }],
        [
          `query($c: String!) { conversationMedia(conversationId: $c) ${PAGE('_id messageId')} }`,
          { c: conversationId },
        ],
        ['query($c: String!) { getChatMediaCounts(chatId: $c) { total } }', { c: chatId }],
        ['query($c: String!) { conversationMediaCounts(conversationId: $c) { total } }', { c: conversationId }],
        [`{ allMedia ${PAGE('_id messageId')} }`, {}],
      ];
      for (const [query, variables] of reads) {
        const body = JSON.stringify(dataOf(await harness.graphql(query, variables, key)));
        expect(body, query).not.to.contain(NOTE_TEXT);
        for (const id of noteIds) expect(body, query).not.to.contain(id);
      }
      const page = await harness
        .graphql<{ getMessages: Page<{ _id: string }> }>(
          `query($c: String!) { getMessages(chatId: $c, input: { limit: 1 }) ${PAGE('_id')} }`,
          { c: chatId },
          key,
        )
        .then(dataOf);
      expect(page.getMessages.hasNext, 'notes are not even counted').to.equal(false);
      const searched = await harness
        .graphql<{ searchConversations: { totalCount: number | null } }>(
          '{ searchConversations(query: "secret") { totalCount } }',
          {},
          key,
        )
        .then(dataOf);
      expect(searched.searchConversations.totalCount, 'a note makes no conversation match').to.equal(0);
      for (const query of [
        'query($c: String!) { getChatNotes(chatId: $c) { hasNext } }',
        'query($c: String!) { conversationNotes(conversationId: $c) { hasNext } }',
      ])
        expectError(await harness.graphql(query, { c: chatId }, key), 403, 'FORBIDDEN');
      for (const id of noteIds)
        for (const mutation of [
          'mutation($m: String!) { updateMessage(messageId: $m, text: "x") { _id } }',
          'mutation($m: String!) { deleteMessage(messageId: $m) { _id } }',
          'mutation($m: String!) { addMessageReaction(messageId: $m, emoji: "👍") { _id } }',
          'mutation($m: String!) { setMessageLabels(messageId: $m, labelIds: []) { _id } }',
        ])
          expectError(await harness.graphql(mutation, { m: id }, key), 200, 'NOT_FOUND');
      expectError(
        await harness.graphql(
          'mutation($c: String!, $ids: [String!]!) { readMessages(chatId: $c, messageIds: $ids) { _id } }',
          { c: chatId, ids: [noteIds[0]] },
          key,
        ),
        200,
        'NOT_FOUND',
      );
    });
  });
});
