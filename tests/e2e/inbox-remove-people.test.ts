import { expect } from 'chai';
import { ApiScope, eventually, newId } from '@svc/kit';
import { dataOf, expectError, inboxSuite } from './inbox-fixtures';

const DELETE_CONVERSATION = `mutation($c: String!, $r: Boolean) {
  apiDeleteConversation(conversationId: $c, removePeople: $r) { conversationId deletedChatIds contactEraseRequested erasureId } }`;
const ERASE = `mutation($c: String!) { eraseContact(contactId: $c) {
  id contactId requestedBy services { service confirmed counts { kind count } } } }`;

interface DeleteResult {
  conversationId: string;
  deletedChatIds: string[];
  contactEraseRequested: boolean;
  erasureId: string | null;
}

interface Receipt {
  id: string;
  contactId: string;
  requestedBy: string;
  services: { service: string; confirmed: boolean; counts: { kind: string; count: number }[] }[];
}

describe('Inbox.apiDeleteConversation with removePeople (whole stack over HTTP)', () => {
  const inbox = inboxSuite();
  const { harness } = inbox;
  const call = (query: string, variables: Record<string, unknown>, as = inbox.key) =>
    harness.graphql<Record<string, unknown>>(query, variables, as);
  const gql = async <T>(query: string, variables: Record<string, unknown> = {}, as = inbox.key) =>
    dataOf(await harness.graphql<T>(query, variables, as));

  /** A contact of contacts with two threads in the inbox (messages, a note), and another contact's thread. */
  async function person() {
    const created = await gql<{ createContactApi: { id: string } }>(
      'mutation($i: ContactApiInput!) { createContactApi(input: $i) { id } }',
      { i: { name: 'Ada Lovelace', email: `ada-${newId().slice(-8)}@example.com` } },
    );
    const contactId = created.createContactApi.id;
    const first = await inbox.channels.openChat({ contactId });
    const second = await inbox.channels.openChat({ contactId });
    await inbox.channels.receive(first._id, 'please forget me');
    await inbox.channels.receive(second._id, 'on this channel too');
    await gql('mutation($c: String!) { sendMessage(chatId: $c, input: { text: "noted", internal: true }) { _id } }', {
      c: first._id,
    });
    const bystander = await inbox.channels.openChat();
    return { contactId, conversationId: first.conversationId, chatIds: [first._id, second._id], bystander };
  }

  const chatIsGone = async (chatId: string) =>
    expectError(await call('query($c: String!) { chat(chatId: $c) { _id } }', { c: chatId }), 200, 'NOT_FOUND');

  it("erases the conversation's contact through eraseContact's saga and answers truthfully", async () => {
    const world = await person();
    const asker = await inbox.org.mintKey([ApiScope.CONVERSATIONS_DELETE, ApiScope.CONTACTS_ERASE]);
    const { apiDeleteConversation: result } = await gql<{ apiDeleteConversation: DeleteResult }>(
      DELETE_CONVERSATION,
      { c: world.conversationId, r: true },
      asker.key,
    );
    expect(result.contactEraseRequested).to.equal(true);
    expect(result.erasureId).to.match(/^[0-9a-f]{24}$/);
    expect(result.deletedChatIds).to.have.members(world.chatIds);
    for (const chatId of world.chatIds) await chatIsGone(chatId);
    expectError(
      await call('query($c: String!) { conversation(conversationId: $c) { _id } }', { c: world.conversationId }),
      200,
      'NOT_FOUND',
    );
    expectError(
      await call('query($id: ID!) { contactApi(id: $id) { id } }', { id: world.contactId }),
      200,
      'NOT_FOUND',
    );
    await gql('query($c: String!) { chat(chatId: $c) { _id } }', { c: world.bystander._id });
    // The same erasure: its receipt names the key that asked and carries the inbox's part, done before the answer.
    const receipt = await eventually(
      async () => {
        const { eraseContact } = await gql<{ eraseContact: Receipt }>(ERASE, { c: world.contactId });
        return eraseContact.services.find((s) => s.service === 'inbox')?.confirmed && eraseContact;
      },
      30_000,
      "the inbox's confirmation on the receipt",
    );
    expect(receipt.id).to.equal(result.erasureId);
    expect(receipt.requestedBy).to.equal(asker.id);
    const counts = Object.fromEntries(
      (receipt.services.find((s) => s.service === 'inbox')?.counts ?? []).map((c) => [c.kind, c.count]),
    );
    expect(counts).to.deep.include({ conversations: 1, chats: 2, messages: 2, notes: 1 });
  });

  it('is NOT_FOUND for an unknown or another org’s conversation, and erases nothing', async () => {
    const world = await person();
    const other = await harness.newOrg('Other');
    const otherKey = (await other.mintKey([ApiScope.CONVERSATIONS_DELETE, ApiScope.CONTACTS_ERASE])).key;
    expectError(await call(DELETE_CONVERSATION, { c: world.conversationId, r: true }, otherKey), 200, 'NOT_FOUND');
    expectError(await call(DELETE_CONVERSATION, { c: newId(), r: true }), 200, 'NOT_FOUND');
    expectError(await call(DELETE_CONVERSATION, { c: 'nope', r: true }), 200, 'BAD_USER_INPUT');
    await gql('query($id: ID!) { contactApi(id: $id) { id } }', { id: world.contactId });
    for (const chatId of world.chatIds) await gql('query($c: String!) { chat(chatId: $c) { _id } }', { c: chatId });
  });

  it('refuses a contact the contacts service does not know, deleting nothing', async () => {
    const chat = await inbox.channels.openChat();
    const refused = await call(DELETE_CONVERSATION, { c: chat.conversationId, r: true });
    expectError(refused, 200, 'FAILED_PRECONDITION');
    expect(refused.body.errors?.[0]?.extensions?.field).to.equal('removePeople');
    await gql('query($c: String!) { chat(chatId: $c) { _id } }', { c: chat._id });
  });

  it('with removePeople: false deletes the conversation only: no erasure, the contact stays', async () => {
    const world = await person();
    const { apiDeleteConversation: result } = await gql<{ apiDeleteConversation: DeleteResult }>(DELETE_CONVERSATION, {
      c: world.conversationId,
    });
    expect(result).to.deep.include({ contactEraseRequested: false, erasureId: null });
    await gql('query($id: ID!) { contactApi(id: $id) { id } }', { id: world.contactId });
  });
});
