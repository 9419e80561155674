import { expect } from 'chai';
import { SAMPLES } from '../support/media-samples';
import { dataOf, expectError, inboxSuite, MESSAGE_FIELDS, PAGE, type Page } from './inbox-fixtures';

interface Message {
  _id: string;
  type: string;
  text: string;
  deleted: boolean;
  editedAt: string | null;
  edits: { text: string }[];
  reactions: { emoji: string; reactorId: string }[];
  labelIds: string[];
  mediaIds: string[];
  location: { latitude: number; longitude: number; name: string | null } | null;
  contactCard: { name: string | null; phone: string | null } | null;
  buttons: { id: string; title: string }[];
}

describe('Inbox messages, labels and collections (whole stack over HTTP)', function () {
  const inbox = inboxSuite();
  const { harness } = inbox;

  const call = <T>(query: string, variables: Record<string, unknown> = {}) =>
    harness.graphql<T>(query, variables, inbox.key);
  const gql = <T>(query: string, variables: Record<string, unknown> = {}) => call<T>(query, variables).then(dataOf);
  const send = (chatId: string, input: Record<string, unknown>) =>
    call<{ sendMessage: Message }>(
      `mutation($chatId: String!, $input: CreateCombinedMessageInput!) { sendMessage(chatId: $chatId, input: $input) { ${MESSAGE_FIELDS} } }`,
      { chatId, input },
    );

  describe('Inbox.sendMessage (every type)', () => {
    it('sends text, media, location, contact card and buttons messages', async () => {
      const { _id: chatId } = await inbox.channels.openChat();
      const uploaded = await harness.upload<{ createMedia: { _id: string } }>(
        'mutation($f: File!) { createMedia(file: $f) { _id } }',
        { f: null },
        { 'variables.f': { bytes: SAMPLES.png, name: 'photo.png' } },
        inbox.key,
      );
      const media = [dataOf(uploaded).createMedia._id];
      expect(dataOf(await send(chatId, { text: 'hi' })).sendMessage.type).to.equal('TEXT');
      expect(
        dataOf(await send(chatId, { type: 'MEDIA', mediaIds: media, text: 'look' })).sendMessage.mediaIds,
      ).to.deep.equal(media);
      const location = dataOf(
        await send(chatId, { type: 'LOCATION', location: { latitude: 51.5, longitude: -0.12, name: 'London' } }),
      ).sendMessage.location;
      expect(location).to.deep.equal({ latitude: 51.5, longitude: -0.12, name: 'London' });
      const card = dataOf(await send(chatId, { type: 'CONTACT_CARD', contactCard: { name: 'Bob', phone: '+1555' } }))
        .sendMessage.contactCard;
      expect(card).to.deep.equal({ name: 'Bob', phone: '+1555', email: null });
      const buttons = dataOf(
        await send(chatId, {
          type: 'BUTTONS',
          text: 'Pick',
          buttons: [
            { id: 'y', title: 'Yes' },
            { id: 'n', title: 'No' },
          ],
        }),
      ).sendMessage.buttons;
      expect(buttons.map((b) => b.id)).to.deep.equal(['y', 'n']);
    });

    it('answers BAD_USER_INPUT for a message that does not fit its type', async () => {
      const { _id: chatId } = await inbox.channels.openChat();
      expectError(await send(chatId, { type: 'MEDIA', mediaIds: [] }), 200, 'BAD_USER_INPUT');
      expectError(
        await send(chatId, { type: 'LOCATION', location: { latitude: 91, longitude: 0 } }),
        200,
        'BAD_USER_INPUT',
      );
      expectError(await send(chatId, { type: 'BUTTONS', text: 'x', buttons: [] }), 200, 'BAD_USER_INPUT');
      expectError(await send(chatId, { type: 'LOCATION', internal: true }), 200, 'BAD_USER_INPUT');
    });
  });

  describe('Inbox.updateMessage / deleteMessage', () => {
    it('edits keeping the history and editedAt, then soft-deletes visibly', async () => {
      const { _id: chatId } = await inbox.channels.openChat();
      const sent = dataOf(await send(chatId, { text: 'teh' })).sendMessage;
      const edited = await gql<{ updateMessage: Message }>(
        `mutation($id: String!) { updateMessage(messageId: $id, text: "the") { ${MESSAGE_FIELDS} } }`,
        { id: sent._id },
      );
      expect(edited.updateMessage.text).to.equal('the');
      expect(edited.updateMessage.editedAt).to.match(/Z$/);
      expect(edited.updateMessage.edits.map((e) => e.text)).to.deep.equal(['teh']);
      const deleted = await gql<{ deleteMessage: Message }>(
        `mutation($id: String!) { deleteMessage(messageId: $id) { ${MESSAGE_FIELDS} } }`,
        { id: sent._id },
      );
      expect(deleted.deleteMessage).to.include({ deleted: true, text: '' });
      const thread = await gql<{ getMessages: Page<Message> }>(
        `query($chatId: String!) { getMessages(chatId: $chatId) ${PAGE(MESSAGE_FIELDS)} }`,
        { chatId },
      );
      expect(thread.getMessages.data.map((m) => [m._id, m.deleted, m.edits.length])).to.deep.equal([
        [sent._id, true, 0],
      ]);
      expectError(
        await call(`mutation($id: String!) { updateMessage(messageId: $id, text: "again") { _id } }`, { id: sent._id }),
        200,
        'FAILED_PRECONDITION',
      );
    });

    it('answers a selection with aliases, fragments, inline fragments and nested fields as a plain one', async () => {
      // The gateway tells the inbox which fields the selection reads (mesh/src/response-field-mask.ts): every way of
      // selecting one must still reach the service and come back under the client's names.
      const { _id: chatId } = await inbox.channels.openChat();
      await send(chatId, { type: 'CONTACT_CARD', text: 'card', contactCard: { name: 'Bob', phone: '+1555' } });
      await send(chatId, { type: 'LOCATION', location: { latitude: 1.5, longitude: 2.5, name: 'Here' } });
      const plain = await gql<{ getMessages: Page<Message> }>(
        `query($c: String!) { getMessages(chatId: $c) ${PAGE(MESSAGE_FIELDS)} }`,
        { c: chatId },
      );
      const shaped = await gql<{
        messages: { __typename: string; items: { id: string; words: string; card: { who: string | null } | null }[] };
        again: { data: { location: { latitude: number } | null; text: string }[]; more: boolean };
      }>(
        `query($c: String!, $with: Boolean!) {
          messages: getMessages(chatId: $c) { __typename items: data { id: _id ...Words card: contactCard { who: name } } }
          again: getMessages(chatId: $c) { data { ... on Message { location { latitude } } ...Words } more: hasNext }
          hidden: getMessages(chatId: $c) @include(if: $with) { data { _id } }
        }
        fragment Words on Message { words: text text }`,
        { c: chatId, with: false },
      );
      expect(shaped.messages.__typename).to.equal('PaginatedMessages');
      expect(shaped.messages.items).to.deep.equal(
        plain.getMessages.data.map((m) => ({
          id: m._id,
          words: m.text,
          text: m.text,
          card: m.contactCard && { who: m.contactCard.name },
        })),
      );
      expect(shaped.messages.items.map((m) => m.card?.who)).to.deep.equal(['Bob', undefined]);
      expect(shaped.again).to.deep.equal({
        data: plain.getMessages.data.map((m) => ({
          location: m.location && { latitude: m.location.latitude },
          words: m.text,
          text: m.text,
        })),
        more: false,
      });
      expect(shaped.again.data[1]?.location).to.deep.equal({ latitude: 1.5 });
      expect(shaped).to.not.have.property('hidden');
    });

    it('answers edits, reactions and labels selected alone or through a fragment as the full selection does', async () => {
      // The inbox reads a message's details only when the call's field mask names them (docs/decisions/0290).
      const { _id: chatId } = await inbox.channels.openChat();
      const { _id: id } = dataOf(await send(chatId, { text: 'teh' })).sendMessage;
      const label = await gql<{ createLabel: { _id: string } }>(
        'mutation { createLabel(input: { name: "Masked", color: "#00ff00" }) { _id } }',
      );
      await gql(`mutation($id: String!) { updateMessage(messageId: $id, text: "the") { _id } }`, { id });
      await gql(`mutation($id: String!) { addMessageReaction(messageId: $id, emoji: "🎉") { _id } }`, { id });
      await gql(`mutation($id: String!, $l: [String!]!) { setMessageLabels(messageId: $id, labelIds: $l) { _id } }`, {
        id,
        l: [label.createLabel._id],
      });
      const full = await gql<{ getMessages: Page<Message> }>(
        `query($c: String!) { getMessages(chatId: $c) ${PAGE(MESSAGE_FIELDS)} }`,
        { c: chatId },
      );
      const [message] = full.getMessages.data;
      expect(message?.edits.map((e) => e.text)).to.deep.equal(['teh']);
      expect(message?.reactions.map((r) => r.emoji)).to.deep.equal(['🎉']);
      expect(message?.labelIds).to.deep.equal([label.createLabel._id]);
      for (const selection of [
        'edits { text editedAt }',
        'reactions { emoji reactorId }',
        'labelIds',
        '...Details',
        '... on Message { reactions { emoji reactorId } }',
      ]) {
        const alone = await gql<{ getMessages: { data: Partial<Message>[] } }>(
          `query($c: String!) { getMessages(chatId: $c) { data { ${selection} } } }
          ${selection === '...Details' ? 'fragment Details on Message { labelIds edits { text editedAt } }' : ''}`,
          { c: chatId },
        );
        const [shown] = alone.getMessages.data;
        for (const [field, value] of Object.entries(shown ?? {}))
          expect(value, `${selection}: ${field}`).to.deep.equal(message?.[field as keyof Message]);
        expect(Object.keys(shown ?? {}), selection).to.have.length.above(0);
      }
    });

    it("refuses to edit the contact's own message", async () => {
      const { _id: chatId } = await inbox.channels.openChat();
      const inbound = await inbox.channels.receive(chatId, 'mine');
      expectError(
        await call(`mutation($id: String!) { updateMessage(messageId: $id, text: "x") { _id } }`, { id: inbound._id }),
        200,
        'FAILED_PRECONDITION',
      );
    });
  });

  describe('Inbox.addMessageReaction / removeMessageReaction', () => {
    it('keeps one reaction per reactor per emoji, idempotently', async () => {
      const { _id: chatId } = await inbox.channels.openChat();
      const sent = dataOf(await send(chatId, { text: 'react to me' })).sendMessage;
      const add = () =>
        gql<{ addMessageReaction: Message }>(
          `mutation($id: String!) { addMessageReaction(messageId: $id, emoji: "👍") { ${MESSAGE_FIELDS} } }`,
          { id: sent._id },
        );
      await add();
      expect((await add()).addMessageReaction.reactions.map((r) => r.emoji)).to.deep.equal(['👍']);
      const removed = await gql<{ removeMessageReaction: Message }>(
        `mutation($id: String!) { removeMessageReaction(messageId: $id, emoji: "👍") { ${MESSAGE_FIELDS} } }`,
        { id: sent._id },
      );
      expect(removed.removeMessageReaction.reactions).to.deep.equal([]);
    });
  });

  describe('Inbox labels and Inbox.setMessageLabels', () => {
    it('creates, updates, archives and restores labels; applies only active ones', async () => {
      const created = await gql<{ createLabel: { _id: string; color: string } }>(
        'mutation { createLabel(input: { name: "Urgent", color: "#FF0000" }) { _id color } }',
      );
      const labelId = created.createLabel._id;
      expect(created.createLabel.color).to.equal('#ff0000');
      expectError(await call('mutation { createLabel(input: { name: "urgent" }) { _id } }'), 200, 'CONFLICT');
      const updated = await gql<{ updateLabel: { name: string } }>(
        'mutation($id: String!) { updateLabel(labelId: $id, input: { name: "Very urgent" }) { name } }',
        { id: labelId },
      );
      expect(updated.updateLabel.name).to.equal('Very urgent');
      const { _id: chatId } = await inbox.channels.openChat();
      const sent = dataOf(await send(chatId, { text: 'label me' })).sendMessage;
      const setLabels = (ids: string[]) =>
        call<{ setMessageLabels: Message }>(
          `mutation($id: String!, $ids: [String!]!) { setMessageLabels(messageId: $id, labelIds: $ids) { labelIds } }`,
          { id: sent._id, ids },
        );
      expect(dataOf(await setLabels([labelId])).setMessageLabels.labelIds).to.deep.equal([labelId]);
      await gql('mutation($id: String!) { archiveLabel(labelId: $id) { archived } }', { id: labelId });
      const active = await gql<{ activeLabels: Page<{ _id: string }> }>(`{ activeLabels ${PAGE('_id')} }`);
      expect(active.activeLabels.data.map((l) => l._id)).not.to.include(labelId);
      const all = await gql<{ labels: Page<{ _id: string; archived: boolean }> }>(`{ labels ${PAGE('_id archived')} }`);
      expect(all.labels.data.find((l) => l._id === labelId)?.archived).to.equal(true);
      expect(dataOf(await setLabels([])).setMessageLabels.labelIds).to.deep.equal([]);
      expectError(await setLabels([labelId]), 200, 'FAILED_PRECONDITION');
      await gql('mutation($id: String!) { restoreLabel(labelId: $id) { archived } }', { id: labelId });
      expect(dataOf(await setLabels([labelId])).setMessageLabels.labelIds).to.deep.equal([labelId]);
      const one = await gql<{ label: { name: string; archived: boolean } }>(
        'query($id: String!) { label(labelId: $id) { name archived } }',
        { id: labelId },
      );
      expect(one.label).to.deep.equal({ name: 'Very urgent', archived: false });
    });
  });

  describe('Inbox collections', () => {
    it('builds a tree, files chats, counts them, moves and deletes sub-trees', async () => {
      const create = (name: string, parentId?: string) =>
        gql<{ apiCreateChatCollection: { _id: string; depth: number } }>(
          'mutation($name: String!, $parentId: String) { apiCreateChatCollection(input: { name: $name, parentId: $parentId }) { _id depth } }',
          { name, parentId },
        ).then((d) => d.apiCreateChatCollection);
      const root = await create('Support');
      const child = await create('Tier 2', root._id);
      const other = await create('Sales');
      expect(child.depth).to.equal(1);
      const opened = await inbox.channels.openChat();
      await inbox.channels.receive(opened._id, 'help');
      await gql(
        'mutation($chatId: String!, $c: JSON) { updateChatField(chatId: $chatId, input: { field: COLLECTION, value: $c }) { _id } }',
        { chatId: opened._id, c: child._id },
      );
      const chats = await gql<{ collectionChats: Page<{ _id: string }> }>(
        `query($id: String!) { collectionChats(collectionId: $id) ${PAGE('_id')} }`,
        { id: child._id },
      );
      expect(chats.collectionChats.data.map((c) => c._id)).to.deep.equal([opened._id]);
      const conversations = await gql<{ collectionConversations: Page<{ _id: string }> }>(
        `query($id: String!) { collectionConversations(collectionId: $id) ${PAGE('_id')} }`,
        { id: child._id },
      );
      expect(conversations.collectionConversations.data.map((c) => c._id)).to.deep.equal([opened.conversationId]);
      const count = await gql<{ collectionChatCount: { total: number; open: number } }>(
        'query($id: String!) { collectionChatCount(collectionId: $id) { total open } }',
        { id: child._id },
      );
      expect(count.collectionChatCount).to.deep.equal({ total: 1, open: 1 });
      const counts = await gql<{ chatCollectionCounts: { data: { collectionId: string; unread: number }[] } }>(
        '{ chatCollectionCounts { data { collectionId total open unread } uncollectedTotal } }',
      );
      expect(counts.chatCollectionCounts.data.find((c) => c.collectionId === child._id)?.unread).to.equal(1);
      const tree = await gql<{ chatCollections: { _id: string }[] }>('{ chatCollections { _id parentId depth } }');
      expect(tree.chatCollections.map((c) => c._id)).to.include.members([root._id, child._id, other._id]);
      expectError(
        await call(
          'mutation($id: String!, $p: String) { apiMoveChatCollection(collectionId: $id, parentId: $p) { _id } }',
          {
            id: root._id,
            p: child._id,
          },
        ),
        200,
        'FAILED_PRECONDITION',
      );
      const moved = await gql<{ apiMoveChatCollection: { parentId: string; depth: number } }>(
        'mutation($id: String!, $p: String) { apiMoveChatCollection(collectionId: $id, parentId: $p) { parentId depth } }',
        { id: root._id, p: other._id },
      );
      expect(moved.apiMoveChatCollection).to.deep.equal({ parentId: other._id, depth: 1 });
      const renamed = await gql<{ apiUpdateChatCollection: { name: string } }>(
        'mutation($id: String!) { apiUpdateChatCollection(collectionId: $id, input: { name: "Help" }) { name } }',
        { id: root._id },
      );
      expect(renamed.apiUpdateChatCollection.name).to.equal('Help');
      const removed = await gql<{ apiDeleteChatCollection: { deletedIds: string[] } }>(
        'mutation($id: String!) { apiDeleteChatCollection(collectionId: $id) { deletedIds } }',
        { id: root._id },
      );
      expect(removed.apiDeleteChatCollection.deletedIds).to.have.members([root._id, child._id]);
      const chat = await gql<{ chat: { collectionId: string | null } }>(
        'query($id: String!) { chat(chatId: $id) { collectionId } }',
        { id: opened._id },
      );
      expect(chat.chat.collectionId).to.equal(null);
      const one = await gql<{ chatCollection: { name: string } }>(
        'query($id: String!) { chatCollection(collectionId: $id) { name } }',
        { id: other._id },
      );
      expect(one.chatCollection.name).to.equal('Sales');
    });
  });
});
