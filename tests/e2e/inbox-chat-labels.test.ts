import { expect } from 'chai';
import { ApiScope, eventually, newId } from '@svc/kit';
import { ALL_SCOPES_BUT_PARTNER, type GraphQLResponse } from '../support/stack-harness';
import { dataOf, expectError, inboxSuite, PAGE, type Page } from './inbox-fixtures';

interface Chat {
  _id: string;
  conversationId: string;
  labelIds: string[];
}

const CHAT = '_id conversationId labelIds';
const SET_LABELS = `mutation($c: String!, $v: JSON) {
  updateChatField(chatId: $c, input: { field: LABELS, value: $v }) { ${CHAT} } }`;

describe('Inbox chat (thread) labels (whole stack over HTTP)', function () {
  const inbox = inboxSuite({ observe: ['svc.inbox.chats.v1'] });
  const { harness, seen } = inbox;

  const gql = <T>(query: string, variables: Record<string, unknown> = {}, as = inbox.key) =>
    harness.graphql<T>(query, variables, as).then(dataOf);
  const setLabels = (
    chatId: string,
    value: unknown,
    as = inbox.key,
  ): Promise<GraphQLResponse<{ updateChatField: Chat }>> => harness.graphql(SET_LABELS, { c: chatId, v: value }, as);
  const labelsOf = async (chatId: string, value: unknown) => dataOf(await setLabels(chatId, value)).updateChatField;
  const chat = async (chatId: string) =>
    (await gql<{ chat: Chat }>(`query($c: String!) { chat(chatId: $c) { ${CHAT} } }`, { c: chatId })).chat;
  const newLabel = async (as = inbox.key) =>
    (
      await gql<{ createLabel: { _id: string } }>(
        'mutation($n: String!) { createLabel(input: { name: $n }) { _id } }',
        { n: `l-${newId()}` },
        as,
      )
    ).createLabel._id;

  describe('Inbox.updateChatField LABELS', () => {
    it("sets the thread's labels, shown by chat, searchChats and threadsPage", async () => {
      const opened = await inbox.channels.openChat();
      const [first, second] = [await newLabel(), await newLabel()];
      expect((await labelsOf(opened._id, [first, second])).labelIds).to.have.members([first, second]);
      expect((await chat(opened._id)).labelIds).to.have.members([first, second]);
      const searched = await gql<{ searchChats: Page<Chat> }>(
        `query($f: SearchChatsInput) { searchChats(filter: $f) ${PAGE(CHAT)} }`,
        { f: { labelId: first } },
      );
      expect(searched.searchChats.data.find((c) => c._id === opened._id)?.labelIds).to.have.members([first, second]);
      const threads = await gql<{ threadsPage: Page<Chat> }>(
        `query($c: String!) { threadsPage(conversationId: $c) ${PAGE(CHAT)} }`,
        { c: opened.conversationId },
      );
      expect(threads.threadsPage.data.map((t) => [t._id, [...t.labelIds].sort()])).to.deep.equal([
        [opened._id, [first, second].sort()],
      ]);
      const other = await inbox.channels.openChat();
      expect((await chat(other._id)).labelIds).to.deep.equal([]);
    });

    it('replaces the whole set, counts a repeated id once, and [] removes every label', async () => {
      const opened = await inbox.channels.openChat();
      const [a, b, c] = [await newLabel(), await newLabel(), await newLabel()];
      await labelsOf(opened._id, [a, b]);
      expect((await labelsOf(opened._id, [b, c, c])).labelIds).to.have.members([b, c]);
      expect((await chat(opened._id)).labelIds).to.have.members([b, c]);
      expect((await labelsOf(opened._id, [])).labelIds).to.deep.equal([]);
      expect((await chat(opened._id)).labelIds).to.deep.equal([]);
    });

    it('emits chat.labels_set with the labels after each change, and nothing when the set is unchanged', async () => {
      const opened = await inbox.channels.openChat();
      const label = await newLabel();
      await labelsOf(opened._id, [label]);
      await labelsOf(opened._id, [label]);
      await labelsOf(opened._id, []);
      // Events of one chat share a key, so they arrive in order: once the last is seen, the others have been.
      const labelEvents = () => seen.filter((e) => e.type === 'chat.labels_set' && e.chat?.chatId === opened._id);
      await eventually(async () => labelEvents().length >= 2, 30_000, 'chat.labels_set');
      expect(labelEvents().map((e) => e.chat?.labelIds)).to.deep.equal([[label], []]);
    });

    it('keeps an archived label on a thread that has it, but refuses to apply it anew (FAILED_PRECONDITION)', async () => {
      const opened = await inbox.channels.openChat();
      const [archived, active] = [await newLabel(), await newLabel()];
      await labelsOf(opened._id, [archived]);
      await gql('mutation($l: String!) { archiveLabel(labelId: $l) { archived } }', { l: archived });
      expect((await labelsOf(opened._id, [archived, active])).labelIds).to.have.members([archived, active]);
      await labelsOf(opened._id, [active]);
      expectError(await setLabels(opened._id, [archived, active]), 200, 'FAILED_PRECONDITION');
      expect((await chat(opened._id)).labelIds).to.deep.equal([active]);
    });

    it("answers NOT_FOUND for an unknown label or another org's label", async () => {
      const opened = await inbox.channels.openChat();
      const mine = await newLabel();
      await labelsOf(opened._id, [mine]);
      const otherOrgKey = (await (await harness.newOrg('Other')).mintKey(ALL_SCOPES_BUT_PARTNER)).key;
      const theirs = await newLabel(otherOrgKey);
      for (const value of [[newId()], [mine, theirs]])
        expectError(await setLabels(opened._id, value), 200, 'NOT_FOUND');
      expect((await chat(opened._id)).labelIds).to.deep.equal([mine]);
      // Nor can the other org label this org's thread, even with its own label.
      expectError(await setLabels(opened._id, [theirs], otherOrgKey), 200, 'NOT_FOUND');
    });

    it('answers BAD_USER_INPUT for a value that is not an array of at most 20 label ids', async () => {
      const opened = await inbox.channels.openChat();
      const label = await newLabel();
      const tooMany = Array.from({ length: 21 }, () => newId());
      for (const value of [label, null, {}, [1], ['nope'], [label, null], tooMany])
        expectError(await setLabels(opened._id, value), 200, 'BAD_USER_INPUT');
      expect((await chat(opened._id)).labelIds).to.deep.equal([]);
    });

    it('answers 403 FORBIDDEN naming CONVERSATIONS_MANAGE when the key lacks it', async () => {
      const opened = await inbox.channels.openChat();
      const label = await newLabel();
      const reader = (
        await inbox.org.mintKey(ALL_SCOPES_BUT_PARTNER.filter((s) => s !== ApiScope.CONVERSATIONS_MANAGE))
      ).key;
      const response = await setLabels(opened._id, [label], reader);
      expectError(response, 403, 'FORBIDDEN');
      expect(response.body.errors?.[0]?.extensions?.scope).to.equal(ApiScope.CONVERSATIONS_MANAGE);
      expect((await chat(opened._id)).labelIds).to.deep.equal([]);
    });
  });

  describe('Inbox search filter labelId', () => {
    it('matches a thread that carries the label or has a visible message carrying it', async () => {
      const label = await newLabel();
      const labelledThread = await inbox.channels.openChat();
      const labelledMessage = await inbox.channels.openChat();
      const labelledNote = await inbox.channels.openChat();
      const neither = await inbox.channels.openChat();
      const inThread = await inbox.channels.receive(labelledThread._id, 'parcel arrived damaged');
      await inbox.channels.receive(labelledMessage._id, 'parcel never arrived');
      const message = await gql<{ sendMessage: { _id: string } }>(
        'mutation($c: String!) { sendMessage(chatId: $c, input: { text: "parcel resent" }) { _id } }',
        { c: labelledMessage._id },
      );
      const note = await gql<{ sendMessage: { _id: string } }>(
        'mutation($c: String!) { sendMessage(chatId: $c, input: { text: "parcel note", internal: true }) { _id } }',
        { c: labelledNote._id },
      );
      for (const m of [message.sendMessage._id, note.sendMessage._id])
        await gql('mutation($m: String!, $l: [String!]!) { setMessageLabels(messageId: $m, labelIds: $l) { _id } }', {
          m,
          l: [label],
        });
      await labelsOf(labelledThread._id, [label]);
      await inbox.channels.receive(neither._id, 'parcel question');

      const withoutNotes = (await inbox.org.mintKey(ALL_SCOPES_BUT_PARTNER.filter((s) => s !== ApiScope.NOTES_WRITE)))
        .key;
      const chatsFound = async (as: string) =>
        (
          await gql<{ searchChats: Page<Chat> }>(
            `query($f: SearchChatsInput) { searchChats(filter: $f, input: { limit: 100 }) ${PAGE('_id')} }`,
            { f: { labelId: label } },
            as,
          )
        ).searchChats.data.map((c) => c._id);
      expect(await chatsFound(inbox.key)).to.deep.equal([labelledNote._id, labelledMessage._id, labelledThread._id]);
      expect(await chatsFound(withoutNotes)).to.deep.equal([labelledMessage._id, labelledThread._id]);

      const conversations = await gql<{ searchConversations: Page<{ _id: string }> }>(
        `query($f: SearchFilterInput) { searchConversations(filter: $f, input: { limit: 100 }) { data { _id } } }`,
        { f: { labelId: label } },
        withoutNotes,
      );
      expect(conversations.searchConversations.data.map((c) => c._id)).to.deep.equal([
        labelledMessage.conversationId,
        labelledThread.conversationId,
      ]);

      const messages = await gql<{ apiSearchMessages: Page<{ _id: string }> }>(
        `query($f: SearchFilterInput) { apiSearchMessages(query: "parcel", filter: $f) { data { _id } } }`,
        { f: { labelId: label } },
        withoutNotes,
      );
      expect(messages.apiSearchMessages.data.map((m) => m._id)).to.deep.equal([message.sendMessage._id, inThread._id]);
    });
  });

  describe('Inbox hard deletes and chat labels', () => {
    const labelRows = async (chatIds: string[]) => {
      const rows = (await harness.stack.inbox.dataSource.query(
        `SELECT COUNT(*) AS n FROM chat_labels WHERE chat_id IN (${chatIds.map(() => '?').join(', ')})`,
        chatIds,
      )) as { n: number | string }[];
      return Number(rows[0]?.n ?? 0);
    };

    it("apiDeleteChat and apiDeleteConversation remove the threads' labels; the labels themselves stay", async () => {
      const label = await newLabel();
      const lone = await inbox.channels.openChat();
      const contactId = newId();
      const first = await inbox.channels.openChat({ contactId });
      const second = await inbox.channels.openChat({ contactId });
      for (const c of [lone, first, second]) await labelsOf(c._id, [label]);
      expect(await labelRows([lone._id, first._id, second._id])).to.equal(3);

      await gql('mutation($c: String!) { apiDeleteChat(chatId: $c) { chatId } }', { c: lone._id });
      expect(await labelRows([lone._id])).to.equal(0);
      expect(await labelRows([first._id, second._id])).to.equal(2);

      await gql('mutation($c: String!) { apiDeleteConversation(conversationId: $c) { conversationId } }', {
        c: first.conversationId,
      });
      expect(await labelRows([first._id, second._id])).to.equal(0);
      const kept = await gql<{ label: { _id: string } }>('query($l: String!) { label(labelId: $l) { _id } }', {
        l: label,
      });
      expect(kept.label._id).to.equal(label);
    });
  });
});
