import { expect } from 'chai';
import { eventually, newId } from '@svc/kit';
import { dataOf, inboxSuite } from './inbox-fixtures';

interface Shown {
  name: string | null;
  email: string | null;
  phone: string | null;
}

describe("Inbox copy of a contact's display fields (whole stack over HTTP)", () => {
  const inbox = inboxSuite();
  const gql = <T>(query: string, variables: Record<string, unknown> = {}) =>
    inbox.harness.graphql<T>(query, variables, inbox.key).then(dataOf);

  const createContact = async (name: string, email: string) =>
    (
      await gql<{ createContactApi: { id: string } }>(
        'mutation($i: ContactApiInput!) { createContactApi(input: $i) { id } }',
        { i: { name, email } },
      )
    ).createContactApi.id;

  const shownOnChat = async (chatId: string) =>
    (
      await gql<{ chat: { contact: Shown } }>(
        'query($c: String!) { chat(chatId: $c) { contact { name email phone } } }',
        {
          c: chatId,
        },
      )
    ).chat.contact;

  it('follows updateContactApi on the chats and the conversation, and chat search finds the new name', async () => {
    const unique = newId().slice(-8);
    const contactId = await createContact('Ada Lovelace', `ada-${unique}@example.com`);
    const chat = await inbox.channels.openChat({ contactId, name: 'Ada Lovelace' });
    const second = await inbox.channels.openChat({ contactId, name: 'Ada Lovelace' });
    await gql('mutation($id: ID!, $i: ContactApiInput!) { updateContactApi(id: $id, input: $i) { id } }', {
      id: contactId,
      i: { name: `Ada King ${unique}`, email: `ada.king-${unique}@example.com` },
    });
    const renamed = { name: `Ada King ${unique}`, email: `ada.king-${unique}@example.com` };
    await eventually(
      async () => (await shownOnChat(chat._id)).name === renamed.name,
      30_000,
      'the chat showing the new name',
    );
    expect(await shownOnChat(chat._id)).to.deep.include(renamed);
    expect(await shownOnChat(second._id)).to.deep.include(renamed);
    const conversation = await gql<{ conversation: { contact: Shown } }>(
      'query($c: String!) { conversation(conversationId: $c) { contact { name email } } }',
      { c: chat.conversationId },
    );
    expect(conversation.conversation.contact).to.deep.include(renamed);
    const found = await gql<{ searchChats: { data: { _id: string }[] } }>(
      'query($q: String) { searchChats(filter: { query: $q }) { data { _id } } }',
      { q: `King ${unique}` },
    );
    expect(found.searchChats.data.map((c) => c._id)).to.have.members([chat._id, second._id]);
  });
});
