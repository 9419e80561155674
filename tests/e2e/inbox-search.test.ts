import { expect } from 'chai';
import { ApiScope, newId } from '@svc/kit';
import { ALL_SCOPES_BUT_PARTNER, StackHarness, type TestOrg } from '../support/stack-harness';
import { ChannelSimulator, PAGE, dataOf, expectError, type Page } from './inbox-fixtures';

type Vars = Record<string, unknown>;
interface Item {
  _id: string;
}
interface ConversationResult extends Page<Item> {
  totalCount: number | null;
}

const ids = (page: Page<Item>) => page.data.map((item) => item._id);

describe('Inbox search (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let key: string;
  let keyWithoutPii: string;
  /** An agent of the org: assignees must be members (docs/decisions/0034). */
  let operatorId: string;
  const channelB = newId();
  let grace: { chatId: string; conversationId: string; overdueId: string };
  let alan: { chatId: string; conversationId: string; refundId: string };
  let labelId: string;

  const gql = <T>(query: string, variables: Vars = {}, as = key) =>
    harness.graphql<T>(query, variables, as).then(dataOf);
  const send = async (chatId: string, text: string) =>
    (
      await gql<{ sendMessage: Item }>(
        'mutation($c: String!, $t: String!) { sendMessage(chatId: $c, input: { text: $t }) { _id } }',
        {
          c: chatId,
          t: text,
        },
      )
    ).sendMessage._id;
  const searchMessages = async (query: string, filter: Vars = {}, input: Vars = {}) =>
    (
      await gql<{ apiSearchMessages: Page<Item> }>(
        `query($q: String!, $f: SearchFilterInput, $i: PaginateMessagesInput) { apiSearchMessages(query: $q, filter: $f, input: $i) ${PAGE('_id')} }`,
        { q: query, f: filter, i: input },
      )
    ).apiSearchMessages;
  const searchConversations = async (variables: Vars, as = key) =>
    (
      await gql<{ searchConversations: ConversationResult }>(
        `query($q: String, $f: SearchFilterInput, $i: GetCursorPaginatedInput) {
          searchConversations(query: $q, filter: $f, input: $i) { data { _id } nextCursor previousCursor hasNext hasPrevious totalCount } }`,
        variables,
        as,
      )
    ).searchConversations;
  const searchChats = async (filter: Vars) =>
    ids(
      (
        await gql<{ searchChats: Page<Item> }>(
          `query($f: SearchChatsInput) { searchChats(filter: $f) ${PAGE('_id')} }`,
          {
            f: filter,
          },
        )
      ).searchChats,
    );

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg();
    key = (await org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
    operatorId = await org.addMember();
    keyWithoutPii = (await org.mintKey(ALL_SCOPES_BUT_PARTNER.filter((s) => s !== ApiScope.PII_READ))).key;
    const channels = new ChannelSimulator(harness, org);
    const graceChat = await channels.openChat({ name: 'Grace Hopper' });
    const alanChat = await channels.openChat({ name: 'Alan Turing', channelId: channelB });
    await channels.receive(graceChat._id, 'The invoice for March is overdue');
    grace = {
      chatId: graceChat._id,
      conversationId: graceChat.conversationId,
      overdueId: await send(graceChat._id, 'Sorry, the overdue invoice is on its way'),
    };
    alan = {
      chatId: alanChat._id,
      conversationId: alanChat.conversationId,
      refundId: await send(alanChat._id, 'Refund request for invoice 42'),
    };
    labelId = (await gql<{ createLabel: Item }>('mutation { createLabel(input: { name: "billing" }) { _id } }'))
      .createLabel._id;
    await gql('mutation($m: String!, $l: [String!]!) { setMessageLabels(messageId: $m, labelIds: $l) { _id } }', {
      m: alan.refundId,
      l: [labelId],
    });
    await gql('mutation($c: String!, $o: String!) { assignChatToOperator(chatId: $c, operatorId: $o) { _id } }', {
      c: alan.chatId,
      o: operatorId,
    });
    await gql('mutation($c: String!) { closeChat(chatId: $c) { _id } }', { c: grace.chatId });
  });

  after(async () => harness.stop());

  describe('Inbox.apiSearchMessages', () => {
    it('finds messages containing every word, by word prefix, newest first', async () => {
      const invoices = await searchMessages('invoice');
      expect(invoices.data).to.have.length(3);
      expect(ids(invoices)[0]).to.equal(alan.refundId);
      expect(ids(await searchMessages('OVERDUE invoice, sorry'))).to.deep.equal([grace.overdueId]);
      expect(ids(await searchMessages('invo'))).to.have.length(3);
      expect(ids(await searchMessages('nothing-like-this'))).to.deep.equal([]);
    });

    it('applies the filters', async () => {
      expect(ids(await searchMessages('invoice', { channelId: channelB }))).to.deep.equal([alan.refundId]);
      expect(ids(await searchMessages('invoice', { labelId }))).to.deep.equal([alan.refundId]);
      expect(ids(await searchMessages('invoice', { assigneeId: operatorId }))).to.deep.equal([alan.refundId]);
      expect(ids(await searchMessages('invoice', { status: 'CLOSED' }))).to.have.length(2);
      expect(ids(await searchMessages('invoice', { from: '2999-01-01T00:00:00Z' }))).to.deep.equal([]);
      expect(ids(await searchMessages('invoice', { to: '2999-01-01T00:00:00Z' }))).to.have.length(3);
    });

    it('follows edits and deletes', async () => {
      const id = await send(alan.chatId, 'pineapple pizza');
      expect(ids(await searchMessages('pineapple'))).to.deep.equal([id]);
      await gql('mutation($m: String!) { updateMessage(messageId: $m, text: "mango salad") { _id } }', { m: id });
      expect(ids(await searchMessages('pineapple'))).to.deep.equal([]);
      expect(ids(await searchMessages('mango'))).to.deep.equal([id]);
      await gql('mutation($m: String!) { deleteMessage(messageId: $m) { _id } }', { m: id });
      expect(ids(await searchMessages('mango'))).to.deep.equal([]);
    });

    it('finds stop words, words joined by underscores and words of any length, on both database families', async () => {
      const long = 'pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(2);
      const id = await send(alan.chatId, `The ticket_number for ${long}`);
      for (const query of ['the ticket', 'number', long, long.slice(0, 90), 'pneumono'])
        expect(ids(await searchMessages(query)), query).to.deep.equal([id]);
    });

    it('forgets the messages of a deleted conversation', async () => {
      const channels = new ChannelSimulator(harness, org);
      const doomed = await channels.openChat({ name: 'Doomed Contact' });
      await send(doomed._id, 'ephemeral gooseberry');
      expect(ids(await searchMessages('gooseberry'))).to.have.length(1);
      expect((await searchConversations({ q: 'gooseberry' })).totalCount).to.equal(1);
      await gql('mutation($c: String!) { apiDeleteConversation(conversationId: $c) { conversationId } }', {
        c: doomed.conversationId,
      });
      expect(ids(await searchMessages('gooseberry'))).to.deep.equal([]);
      expect((await searchConversations({ q: 'gooseberry' })).totalCount).to.equal(0);
    });

    it('pages forward then backward over the same items, none skipped or repeated, while messages arrive', async () => {
      const sent: string[] = [];
      for (let i = 0; i < 5; i += 1) sent.push(await send(grace.chatId, `paging marathon ${i}`));
      const forward: string[] = [];
      let page = await searchMessages('marathon', {}, { limit: 2 });
      forward.push(...ids(page));
      const pages = [page];
      while (page.hasNext) {
        await send(grace.chatId, 'paging marathon newcomer');
        page = await searchMessages('marathon', {}, { limit: 2, cursor: page.nextCursor });
        forward.push(...ids(page));
        pages.push(page);
      }
      expect(forward).to.deep.equal([...sent].reverse());
      // Backward from the last page to the first: the newcomers (newer, so before page one) come along too.
      const backward: string[] = [];
      page = pages[pages.length - 1] as Page<Item>;
      backward.unshift(...ids(page));
      while (page.hasPrevious) {
        page = await searchMessages('marathon', {}, { limit: 2, cursor: page.previousCursor, isBefore: true });
        backward.unshift(...ids(page));
      }
      expect(new Set(backward).size, 'no repeats').to.equal(backward.length);
      expect(backward.filter((id) => sent.includes(id))).to.deep.equal(forward);
    });

    it('answers BAD_USER_INPUT for a query without a word, too many words or a bad filter', async () => {
      const run = (query: string, filter: Vars) =>
        harness.graphql(
          'query($q: String!, $f: SearchFilterInput) { apiSearchMessages(query: $q, filter: $f) { hasNext } }',
          { q: query, f: filter },
          key,
        );
      expectError(await run('a b', {}), 200, 'BAD_USER_INPUT');
      expectError(await run('one two three four five six seven eight nine tenth eleven', {}), 200, 'BAD_USER_INPUT');
      expectError(await run('invoice', { from: 'yesterday' }), 200, 'BAD_USER_INPUT');
      expectError(
        await run('invoice', { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }),
        200,
        'BAD_USER_INPUT',
      );
      expectError(await run('invoice', { labelId: 'nope' }), 200, 'BAD_USER_INPUT');
    });
  });

  describe('Inbox.apiSearchChatMessages', () => {
    it('searches one chat only', async () => {
      const found = (
        await gql<{ apiSearchChatMessages: Page<Item> }>(
          `query($c: String!) { apiSearchChatMessages(chatId: $c, query: "invoice") ${PAGE('_id')} }`,
          { c: alan.chatId },
        )
      ).apiSearchChatMessages;
      expect(ids(found)).to.deep.equal([alan.refundId]);
    });

    it('answers NOT_FOUND for an unknown chat', async () => {
      expectError(
        await harness.graphql(
          '{ apiSearchChatMessages(chatId: "0123456789abcdef01234567", query: "invoice") { hasNext } }',
          {},
          key,
        ),
        200,
        'NOT_FOUND',
      );
    });
  });

  describe('Inbox.searchConversations', () => {
    it('finds conversations by message text, with totalCount on the first page only', async () => {
      const first = await searchConversations({ q: 'invoice', i: { limit: 1 } });
      expect(first.totalCount).to.equal(2);
      expect(ids(first)).to.deep.equal([alan.conversationId]);
      expect(first.hasNext).to.equal(true);
      const second = await searchConversations({ q: 'invoice', i: { limit: 1, cursor: first.nextCursor } });
      expect(ids(second)).to.deep.equal([grace.conversationId]);
      expect(second.totalCount).to.equal(null);
      expect(second.hasNext).to.equal(false);
      const back = await searchConversations({
        q: 'invoice',
        i: { limit: 1, cursor: second.previousCursor, before: true },
      });
      expect(ids(back)).to.deep.equal([alan.conversationId]);
    });

    it('defaults to 20 per page and lists every conversation without a query', async () => {
      const all = await searchConversations({});
      expect(all.totalCount).to.equal(2);
      expect(ids(all)).to.have.members([grace.conversationId, alan.conversationId]);
    });

    it('matches message text, not contact fields (finding a person is searchChats)', async () => {
      expect((await searchConversations({ q: 'grace' })).totalCount).to.equal(0);
      expect(ids(await searchConversations({ q: 'march' }, keyWithoutPii))).to.deep.equal([grace.conversationId]);
    });

    it('applies the filters', async () => {
      expect(ids(await searchConversations({ q: 'invoice', f: { status: 'CLOSED' } }))).to.deep.equal([
        grace.conversationId,
      ]);
      expect(ids(await searchConversations({ f: { assigneeId: operatorId } }))).to.deep.equal([alan.conversationId]);
      expect(ids(await searchConversations({ f: { channelId: channelB } }))).to.deep.equal([alan.conversationId]);
      expect(ids(await searchConversations({ f: { labelId } }))).to.deep.equal([alan.conversationId]);
      expect(ids(await searchConversations({ f: { from: '2999-01-01T00:00:00Z' } }))).to.deep.equal([]);
    });

    it('answers BAD_USER_INPUT for a limit out of range or a malformed id', async () => {
      expectError(
        await harness.graphql('{ searchConversations(input: { limit: 0 }) { hasNext } }', {}, key),
        200,
        'BAD_USER_INPUT',
      );
      expectError(
        await harness.graphql('{ searchConversations(filter: { assigneeId: "nope" }) { hasNext } }', {}, key),
        200,
        'BAD_USER_INPUT',
      );
    });
  });

  describe('Inbox.searchChats filters', () => {
    it('filters by status, assignee, label, channel and last activity', async () => {
      expect(await searchChats({ status: 'CLOSED' })).to.deep.equal([grace.chatId]);
      expect(await searchChats({ assigneeId: operatorId })).to.deep.equal([alan.chatId]);
      expect(await searchChats({ labelId })).to.deep.equal([alan.chatId]);
      expect(await searchChats({ channelId: channelB })).to.deep.equal([alan.chatId]);
      expect(await searchChats({ to: '2000-01-01T00:00:00Z' })).to.deep.equal([]);
      expect(await searchChats({ from: '2000-01-01T00:00:00Z' })).to.have.members([grace.chatId, alan.chatId]);
    });
  });
});
