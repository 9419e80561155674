import { expect } from 'chai';
import { eventually, newId } from '@svc/kit';
import { CHAT_FIELDS, dataOf, inboxSuite } from './inbox-fixtures';

interface Chat {
  _id: string;
  conversationId: string;
  status: string;
  assigneeId: string | null;
}

/**
 * Removing a member unassigns their chats: identity emits `member.removed` (svc.identity.members.v1) in the removal's
 * transaction and the inbox consumes it (docs/decisions/0034-assignees-and-contact-conflicts.md).
 */
describe('Removing a member unassigns their chats (whole stack over HTTP)', function () {
  const inbox = inboxSuite();
  const { harness } = inbox;

  const gql = <T>(query: string, variables: Record<string, unknown> = {}) =>
    harness.graphql<T>(query, variables, inbox.key).then((r) => dataOf(r));
  const assigneeOf = async (chatId: string) =>
    (
      await gql<{ chat: Chat }>(`query($id: String!) { chat(chatId: $id) { ${CHAT_FIELDS} } }`, {
        id: chatId,
      })
    ).chat.assigneeId;
  const assign = (chatId: string, operatorId: string) =>
    gql(`mutation($c: String!, $op: String!) { assignChatToOperator(chatId: $c, operatorId: $op) { _id } }`, {
      c: chatId,
      op: operatorId,
    });

  it("unassigns every chat and conversation thread assigned to the removed member, and nobody else's", async () => {
    const leaving = await inbox.org.addMember('Leaving Agent');
    const staying = await inbox.org.addMember('Staying Agent');
    const contactId = newId();
    const first = await inbox.channels.openChat({ contactId });
    const second = await inbox.channels.openChat({ contactId });
    const closed = await inbox.channels.openChat();
    const kept = await inbox.channels.openChat();
    await gql(
      'mutation($id: String!, $op: String!) { assignConversationThreads(conversationId: $id, operatorId: $op) { _id } }',
      {
        id: first.conversationId,
        op: leaving,
      },
    );
    await assign(closed._id, leaving);
    await gql('mutation($c: String!) { closeChat(chatId: $c) { _id } }', { c: closed._id });
    await assign(kept._id, staying);
    expect(await assigneeOf(second._id)).to.equal(leaving);

    await inbox.org.removeMember(leaving);

    await eventually(
      async () => (await Promise.all([first, second, closed].map((c) => assigneeOf(c._id)))).every((a) => a === null),
      20_000,
      "the removed member's chats unassigned",
    );
    expect(await assigneeOf(kept._id)).to.equal(staying);
  });
});
