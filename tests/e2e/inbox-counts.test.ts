import { expect } from 'chai';
import { ALL_SCOPES_BUT_PARTNER, StackHarness, type TestOrg } from '../support/stack-harness';
import { ChannelSimulator, dataOf } from './inbox-fixtures';

interface Counts {
  total: number;
  open: number;
  closed: number;
  unassigned: number;
  mine: number;
  unread: number;
  openUnread: number;
  byAssignee: { assigneeId: string; open: number }[];
}

const COUNTS = '{ inboxCounts { total open closed unassigned mine unread openUnread byAssignee { assigneeId open } } }';

describe('Inbox.inboxCounts (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let key: string;
  let ownerId: string;
  /** An agent of the org: assignees must be members (docs/decisions/0034). */
  let operatorId: string;

  const gql = <T>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    harness.graphql<T>(query, variables, as).then(dataOf);
  const counts = async (as = key) => (await gql<{ inboxCounts: Counts }>(COUNTS, {}, as)).inboxCounts;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg();
    key = (await org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
    const members = await gql<{ orgTeamMembers: { id: string; email: string | null }[] }>(
      '{ orgTeamMembers { id email } }',
      {},
      org.sessionToken,
    );
    ownerId = members.orgTeamMembers.find((m) => m.email === org.ownerEmail)?.id ?? '';
    expect(ownerId).to.have.length(24);
    operatorId = await org.addMember();
  });

  after(async () => harness.stop());

  it('counts chats by status, assignment and unread, for the caller', async () => {
    const channels = new ChannelSimulator(harness, org);
    const [a, b, c, d] = [
      await channels.openChat(),
      await channels.openChat(),
      await channels.openChat(),
      await channels.openChat(),
    ];
    const assign = (chatId: string, operator: string) =>
      gql('mutation($c: String!, $o: String!) { assignChatToOperator(chatId: $c, operatorId: $o) { _id } }', {
        c: chatId,
        o: operator,
      });
    await assign(a._id, operatorId);
    await assign(b._id, operatorId);
    await assign(c._id, ownerId);
    await channels.receive(a._id, 'hello');
    await channels.receive(d._id, 'hi there');
    await gql('mutation($c: String!) { closeChat(chatId: $c) { _id } }', { c: d._id });
    await gql('mutation($c: String!) { sendMessage(chatId: $c, input: { text: "note", internal: true }) { _id } }', {
      c: b._id,
    });

    expect(await counts()).to.deep.equal({
      total: 4,
      open: 3,
      closed: 1,
      unassigned: 0,
      mine: 0,
      unread: 2,
      openUnread: 1,
      byAssignee: [
        { assigneeId: operatorId, open: 2 },
        { assigneeId: ownerId, open: 1 },
      ],
    });
    const asOwner = await counts(org.sessionToken);
    expect(asOwner.mine).to.equal(1);

    await gql('mutation($c: String!) { readAllMessages(chatId: $c) { _id } }', { c: a._id });
    const afterRead = await counts();
    expect([afterRead.unread, afterRead.openUnread]).to.deep.equal([1, 0]);
    expect((await counts(org.sessionToken)).unread, 'read state is per reader').to.equal(2);
    await gql('mutation($c: String!) { unassignChat(chatId: $c) { _id } }', { c: b._id });
    expect((await counts()).unassigned).to.equal(1);
  });
});
