import { expect } from 'chai';
import { newId } from '@svc/kit';
import { ALL_SCOPES_BUT_PARTNER, StackHarness, type TestOrg } from '../support/stack-harness';
import { createInboxWorld, dataOf, expectError, type World } from './inbox-fixtures';

type Vars = Record<string, unknown>;

interface OperationCase {
  op: string;
  query: string;
  vars: (w: World) => Vars;
  /** How another org's key is kept out: NOT_FOUND for the ids, or the lists simply not showing them. */
  isolation: 'not-found' | 'no-leak' | 'none';
  /** Variables that are malformed (BAD_USER_INPUT); defaults to every id replaced by "nope"; null: no arguments. */
  bad?: Vars | null;
}

const P = '{ data { _id } hasNext }';

/** Every inbox operation that takes ids or a page (scopes: the generated matrix of tests/e2e/scope-matrix.test.ts). */
const CASES: OperationCase[] = [
  {
    op: 'chat',
    query: 'query($chatId: String!) { chat(chatId: $chatId) { _id } }',
    vars: (w) => ({ chatId: w.chatId }),
    isolation: 'not-found',
  },
  {
    op: 'getMessages',
    query: `query($chatId: String!) { getMessages(chatId: $chatId) ${P} }`,
    vars: (w) => ({ chatId: w.chatId }),
    isolation: 'not-found',
  },
  {
    op: 'searchChats',
    query: `query($limit: Int!) { searchChats(input: { limit: $limit }) ${P} }`,
    vars: () => ({ limit: 100 }),
    isolation: 'no-leak',
    bad: { limit: 101 },
  },
  {
    op: 'conversation',
    query: 'query($conversationId: String!) { conversation(conversationId: $conversationId) { _id } }',
    vars: (w) => ({ conversationId: w.conversationId }),
    isolation: 'not-found',
  },
  {
    op: 'conversationMessages',
    query: `query($conversationId: String!) { conversationMessages(conversationId: $conversationId) ${P} }`,
    vars: (w) => ({ conversationId: w.conversationId }),
    isolation: 'not-found',
  },
  {
    op: 'threadsPage',
    query: `query($conversationId: String!) { threadsPage(conversationId: $conversationId) ${P} }`,
    vars: (w) => ({ conversationId: w.conversationId }),
    isolation: 'not-found',
  },
  {
    op: 'getChatNotes',
    query: `query($chatId: String!) { getChatNotes(chatId: $chatId) ${P} }`,
    vars: (w) => ({ chatId: w.chatId }),
    isolation: 'not-found',
  },
  {
    op: 'conversationNotes',
    query: `query($conversationId: String!) { conversationNotes(conversationId: $conversationId) ${P} }`,
    vars: (w) => ({ conversationId: w.conversationId }),
    isolation: 'not-found',
  },
  {
    op: 'labels',
    query: `query($limit: Int!) { labels(input: { limit: $limit }) ${P} }`,
    vars: () => ({ limit: 100 }),
    isolation: 'no-leak',
    bad: { limit: 101 },
  },
  {
    op: 'activeLabels',
    query: `query($limit: Int!) { activeLabels(input: { limit: $limit }) ${P} }`,
    vars: () => ({ limit: 100 }),
    isolation: 'no-leak',
    bad: { limit: -1 },
  },
  {
    op: 'label',
    query: 'query($labelId: String!) { label(labelId: $labelId) { _id } }',
    vars: (w) => ({ labelId: w.labelId }),
    isolation: 'not-found',
  },
  {
    op: 'chatCollections',
    query: 'query($parentId: String) { chatCollections(parentId: $parentId) { _id } }',
    vars: (w) => ({ parentId: w.collectionId }),
    isolation: 'not-found',
  },
  {
    op: 'chatCollection',
    query: 'query($collectionId: String!) { chatCollection(collectionId: $collectionId) { _id } }',
    vars: (w) => ({ collectionId: w.collectionId }),
    isolation: 'not-found',
  },
  {
    op: 'collectionChats',
    query: `query($collectionId: String!) { collectionChats(collectionId: $collectionId) ${P} }`,
    vars: (w) => ({ collectionId: w.collectionId }),
    isolation: 'not-found',
  },
  {
    op: 'collectionChatCount',
    query: 'query($collectionId: String!) { collectionChatCount(collectionId: $collectionId) { total } }',
    vars: (w) => ({ collectionId: w.collectionId }),
    isolation: 'not-found',
  },
  {
    op: 'collectionConversations',
    query: `query($collectionId: String!) { collectionConversations(collectionId: $collectionId) ${P} }`,
    vars: (w) => ({ collectionId: w.collectionId }),
    isolation: 'not-found',
  },
  {
    op: 'chatCollectionCounts',
    query: '{ chatCollectionCounts { data { collectionId } uncollectedTotal } }',
    vars: () => ({}),
    isolation: 'no-leak',
    bad: null,
  },
  {
    op: 'inboxCounts',
    query: '{ inboxCounts { total open unread byAssignee { assigneeId open } } }',
    vars: () => ({}),
    isolation: 'no-leak',
    bad: null,
  },
  {
    op: 'apiDeleteChat',
    query: 'mutation($chatId: String!) { apiDeleteChat(chatId: $chatId) { chatId } }',
    vars: (w) => ({ chatId: w.chatId }),
    isolation: 'not-found',
  },
  {
    op: 'apiDeleteConversation',
    query:
      'mutation($conversationId: String!) { apiDeleteConversation(conversationId: $conversationId) { conversationId } }',
    vars: (w) => ({ conversationId: w.conversationId }),
    isolation: 'not-found',
  },
  {
    op: 'searchConversations',
    query: 'query($limit: Int!) { searchConversations(input: { limit: $limit }) { data { _id } hasNext totalCount } }',
    vars: () => ({ limit: 100 }),
    isolation: 'no-leak',
    bad: { limit: 101 },
  },
  {
    op: 'apiSearchMessages',
    query: `query($q: String!) { apiSearchMessages(query: $q) ${P} }`,
    vars: () => ({ q: 'hello' }),
    isolation: 'no-leak',
    bad: { q: 'a !' },
  },
  {
    op: 'apiSearchChatMessages',
    query: `query($chatId: String!) { apiSearchChatMessages(chatId: $chatId, query: "hello") ${P} }`,
    vars: (w) => ({ chatId: w.chatId }),
    isolation: 'not-found',
  },
  {
    op: 'sendMessage',
    query: 'mutation($chatId: String!) { sendMessage(chatId: $chatId, input: { text: "hi" }) { _id } }',
    vars: (w) => ({ chatId: w.chatId }),
    isolation: 'not-found',
  },
  {
    op: 'updateMessage',
    query: 'mutation($messageId: String!) { updateMessage(messageId: $messageId, text: "edited") { _id } }',
    vars: (w) => ({ messageId: w.messageId }),
    isolation: 'not-found',
  },
  {
    op: 'deleteMessage',
    query: 'mutation($messageId: String!) { deleteMessage(messageId: $messageId) { _id } }',
    vars: (w) => ({ messageId: w.messageId }),
    isolation: 'not-found',
  },
  {
    op: 'addMessageReaction',
    query:
      'mutation($messageId: String!, $emoji: String!) { addMessageReaction(messageId: $messageId, emoji: $emoji) { _id } }',
    vars: (w) => ({ messageId: w.messageId, emoji: '👍' }),
    isolation: 'not-found',
    bad: { messageId: newId(), emoji: 'thumbs up' },
  },
  {
    op: 'removeMessageReaction',
    query:
      'mutation($messageId: String!, $emoji: String!) { removeMessageReaction(messageId: $messageId, emoji: $emoji) { _id } }',
    vars: (w) => ({ messageId: w.messageId, emoji: '👍' }),
    isolation: 'not-found',
    bad: { messageId: newId(), emoji: 'x' },
  },
  {
    op: 'closeChat',
    query: 'mutation($chatId: String!) { closeChat(chatId: $chatId) { _id } }',
    vars: (w) => ({ chatId: w.chatId }),
    isolation: 'not-found',
  },
  {
    op: 'reopenChat',
    query: 'mutation($chatId: String!) { reopenChat(chatId: $chatId) { _id } }',
    vars: (w) => ({ chatId: w.chatId }),
    isolation: 'not-found',
  },
  {
    op: 'setChatTyping',
    query: 'mutation($chatId: ID!) { setChatTyping(chatId: $chatId, typing: true) { _id } }',
    vars: (w) => ({ chatId: w.chatId }),
    isolation: 'not-found',
  },
  {
    op: 'setMessageLabels',
    query:
      'mutation($messageId: String!, $labelIds: [String!]!) { setMessageLabels(messageId: $messageId, labelIds: $labelIds) { _id } }',
    vars: (w) => ({ messageId: w.messageId, labelIds: [w.labelId] }),
    isolation: 'not-found',
  },
  {
    op: 'readMessages',
    query: 'mutation($chatId: String!, $ids: [String!]!) { readMessages(chatId: $chatId, messageIds: $ids) { _id } }',
    vars: (w) => ({ chatId: w.chatId, ids: [w.messageId] }),
    isolation: 'not-found',
    bad: { chatId: newId(), ids: [] },
  },
  {
    op: 'readAllMessages',
    query: 'mutation($chatId: String!) { readAllMessages(chatId: $chatId) { _id } }',
    vars: (w) => ({ chatId: w.chatId }),
    isolation: 'not-found',
  },
  {
    op: 'readAllConversation',
    query: 'mutation($conversationId: String!) { readAllConversation(conversationId: $conversationId) { _id } }',
    vars: (w) => ({ conversationId: w.conversationId }),
    isolation: 'not-found',
  },
  {
    op: 'assignChatToOperator',
    query:
      'mutation($chatId: String!, $op: String!) { assignChatToOperator(chatId: $chatId, operatorId: $op) { _id } }',
    vars: (w) => ({ chatId: w.chatId, op: w.operatorId }),
    isolation: 'not-found',
  },
  {
    op: 'unassignChat',
    query: 'mutation($chatId: String!) { unassignChat(chatId: $chatId) { _id } }',
    vars: (w) => ({ chatId: w.chatId }),
    isolation: 'not-found',
  },
  {
    op: 'assignConversationThreads',
    query:
      'mutation($conversationId: String!, $op: String!) { assignConversationThreads(conversationId: $conversationId, operatorId: $op) { _id } }',
    vars: (w) => ({ conversationId: w.conversationId, op: w.operatorId }),
    isolation: 'not-found',
  },
  {
    op: 'blockConversation',
    query:
      'mutation($conversationId: String!) { blockConversation(conversationId: $conversationId, blocked: false) { _id } }',
    vars: (w) => ({ conversationId: w.conversationId }),
    isolation: 'not-found',
  },
  {
    op: 'setConversationAi',
    query:
      'mutation($conversationId: String!) { setConversationAi(conversationId: $conversationId, enabled: true) { _id } }',
    vars: (w) => ({ conversationId: w.conversationId }),
    isolation: 'not-found',
  },
  {
    op: 'updateChatField',
    query:
      'mutation($chatId: String!, $value: JSON) { updateChatField(chatId: $chatId, input: { field: PRIORITY, value: $value }) { _id } }',
    vars: (w) => ({ chatId: w.chatId, value: 'HIGH' }),
    isolation: 'not-found',
    bad: { chatId: newId(), value: 'SOMEWHAT' },
  },
  {
    op: 'sendConversationNote',
    query:
      'mutation($conversationId: String!) { sendConversationNote(conversationId: $conversationId, input: { text: "n" }) { _id } }',
    vars: (w) => ({ conversationId: w.conversationId }),
    isolation: 'not-found',
  },
  {
    op: 'createLabel',
    query: 'mutation($name: String!, $color: String) { createLabel(input: { name: $name, color: $color }) { _id } }',
    vars: () => ({ name: `l-${newId()}` }),
    isolation: 'none',
    bad: { name: 'x', color: 'red' },
  },
  {
    op: 'updateLabel',
    query: 'mutation($labelId: String!) { updateLabel(labelId: $labelId, input: { color: "#00ff00" }) { _id } }',
    vars: (w) => ({ labelId: w.labelId }),
    isolation: 'not-found',
  },
  {
    op: 'archiveLabel',
    query: 'mutation($labelId: String!) { archiveLabel(labelId: $labelId) { _id } }',
    vars: (w) => ({ labelId: w.labelId }),
    isolation: 'not-found',
  },
  {
    op: 'restoreLabel',
    query: 'mutation($labelId: String!) { restoreLabel(labelId: $labelId) { _id } }',
    vars: (w) => ({ labelId: w.labelId }),
    isolation: 'not-found',
  },
  {
    op: 'apiCreateChatCollection',
    query:
      'mutation($parentId: String, $name: String!) { apiCreateChatCollection(input: { name: $name, parentId: $parentId }) { _id } }',
    vars: (w) => ({ parentId: w.collectionId, name: 'sub' }),
    isolation: 'not-found',
    bad: { name: '  ' },
  },
  {
    op: 'apiUpdateChatCollection',
    query:
      'mutation($collectionId: String!) { apiUpdateChatCollection(collectionId: $collectionId, input: { name: "renamed" }) { _id } }',
    vars: (w) => ({ collectionId: w.collectionId }),
    isolation: 'not-found',
  },
  {
    op: 'apiMoveChatCollection',
    query: 'mutation($collectionId: String!) { apiMoveChatCollection(collectionId: $collectionId) { _id } }',
    vars: (w) => ({ collectionId: w.collectionId }),
    isolation: 'not-found',
  },
  {
    op: 'apiDeleteChatCollection',
    query: 'mutation($collectionId: String!) { apiDeleteChatCollection(collectionId: $collectionId) { deletedIds } }',
    vars: (w) => ({ collectionId: w.collectionId }),
    isolation: 'not-found',
  },
  // Media (uploads themselves are multipart requests: tests/e2e/inbox-media.test.ts covers their scope and input).
  {
    op: 'conversationMedia',
    query: `query($conversationId: String!) { conversationMedia(conversationId: $conversationId) ${P} }`,
    vars: (w) => ({ conversationId: w.conversationId }),
    isolation: 'not-found',
  },
  {
    op: 'getChatMedia',
    query: `query($chatId: String!) { getChatMedia(chatId: $chatId) ${P} }`,
    vars: (w) => ({ chatId: w.chatId }),
    isolation: 'not-found',
  },
  {
    op: 'conversationMediaCounts',
    query: 'query($conversationId: String!) { conversationMediaCounts(conversationId: $conversationId) { total } }',
    vars: (w) => ({ conversationId: w.conversationId }),
    isolation: 'not-found',
  },
  {
    op: 'getChatMediaCounts',
    query: 'query($chatId: String!) { getChatMediaCounts(chatId: $chatId) { total } }',
    vars: (w) => ({ chatId: w.chatId }),
    isolation: 'not-found',
  },
  {
    op: 'allMedia',
    query: `query($limit: Int!) { allMedia(input: { limit: $limit }) ${P} }`,
    vars: () => ({ limit: 100 }),
    isolation: 'no-leak',
    bad: { limit: 101 },
  },
  {
    op: 'deleteMedia',
    query: 'mutation($mediaId: String!) { deleteMedia(mediaId: $mediaId) { mediaId } }',
    vars: (w) => ({ mediaId: w.mediaId }),
    isolation: 'not-found',
  },
];

function malformed(vars: Vars): Vars {
  const out: Vars = {};
  for (const [key, value] of Object.entries(vars))
    out[key] =
      /Id$/.test(key) || key === 'ids' || key === 'labelIds' ? (Array.isArray(value) ? ['nope'] : 'nope') : value;
  return out;
}

describe('Inbox operations: org isolation, bad input (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let orgA: TestOrg;
  let world: World;
  let otherOrgKey: string;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    orgA = await harness.newOrg('A');
    world = await createInboxWorld(harness, orgA);
    otherOrgKey = (await (await harness.newOrg('B')).mintKey(ALL_SCOPES_BUT_PARTNER)).key;
  });

  after(async () => harness.stop());

  it('setChatTyping answers the chat to a key of its own org', async () => {
    const { key } = await orgA.mintKey(ALL_SCOPES_BUT_PARTNER);
    const typing = dataOf(
      await harness.graphql(
        'mutation($chatId: ID!, $typing: Boolean!) { setChatTyping(chatId: $chatId, typing: $typing) { _id } }',
        { chatId: world.chatId, typing: false },
        key,
      ),
    );
    expect(typing).to.deep.equal({ setChatTyping: { _id: world.chatId } });
  });

  for (const c of CASES) {
    describe(`Inbox.${c.op}`, () => {
      if (c.isolation === 'not-found')
        it("answers NOT_FOUND for another org's ids", async () => {
          expectError(await harness.graphql(c.query, c.vars(world), otherOrgKey), 200, 'NOT_FOUND');
        });
      if (c.isolation === 'no-leak')
        it("shows nothing of another org's data", async () => {
          const body = JSON.stringify(dataOf(await harness.graphql(c.query, c.vars(world), otherOrgKey)));
          for (const id of Object.values(world)) expect(body).not.to.contain(id);
        });

      if (c.bad !== null)
        it('answers BAD_USER_INPUT for malformed input', async () => {
          const vars = c.bad ?? malformed(c.vars(world));
          const response = await harness.graphql(c.query, vars, otherOrgKey);
          expect(response.body.errors?.[0]?.extensions?.code, JSON.stringify(response.body)).to.be.oneOf([
            'BAD_USER_INPUT',
            'GRAPHQL_VALIDATION_FAILED',
          ]);
          expect(response.body.errors?.[0]?.extensions?.code).to.not.equal('INTERNAL_SERVER_ERROR');
        });
    });
  }
});
