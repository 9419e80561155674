import { expect } from 'chai';
import { eventually, newId } from '@svc/kit';
import { ALL_SCOPES_BUT_PARTNER, StackHarness, type TestOrg } from '../support/stack-harness';
import { WebhookFixtures, postWebhook, type Connection } from '../support/webhooks';
import { dataOf, expectError } from './inbox-fixtures';

interface FlowRun {
  _id: string;
  status: string;
  stepIndex: number;
  error: string | null;
}

describe('Flows: the add-a-label step (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let fixtures: WebhookFixtures;
  let key: string;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('Flow labels');
    fixtures = new WebhookFixtures(harness, org);
    key = (await org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
  });

  after(async () => harness.stop());

  const gql = <T>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    harness.graphql<T>(query, variables, as).then(dataOf);
  const createFlow = (connectionId: string, label: string) =>
    harness.graphql<{ createFlow: { _id: string } }>(
      'mutation($i: CreateFlowInput!) { createFlow(input: $i) { _id } }',
      {
        i: {
          name: 'Label the order',
          trigger: { type: 'WEBHOOK_RECEIVED', connectionId },
          steps: [{ type: 'ADD_LABEL', label }],
        },
      },
      org.sessionToken,
    );
  const newLabel = async () =>
    (
      await gql<{ createLabel: { _id: string } }>(
        'mutation($n: String!) { createLabel(input: { name: $n }) { _id } }',
        {
          n: `order-${newId()}`,
        },
      )
    ).createLabel._id;
  const labelsOf = async (chatId: string) =>
    (await gql<{ chat: { labelIds: string[] } }>('query($c: String!) { chat(chatId: $c) { labelIds } }', { c: chatId }))
      .chat.labelIds;
  const runsOf = async (flowId: string) =>
    (
      await gql<{ flowRuns: { data: FlowRun[] } }>(
        'query($f: String!) { flowRuns(flowId: $f, input: { limit: 100 }) { data { _id status stepIndex error } } }',
        { f: flowId },
        org.sessionToken,
      )
    ).flowRuns.data;
  /** Waits until `count` runs of the flow have finished (completed or failed). */
  const finishedRuns = (flowId: string, count: number) =>
    eventually(
      async () => {
        const runs = await runsOf(flowId);
        const finished = runs.filter((r) => r.status === 'COMPLETED' || r.status === 'FAILED');
        return finished.length >= count ? finished : undefined;
      },
      30_000,
      `${count} finished run(s)`,
    );

  /** A connection, a contact with a chat, and a published flow of the connection whose one step adds `labelId`. */
  async function labellingFlow(labelId: string) {
    const email = `label-${newId()}@example.com`;
    const connection = await fixtures.connection({});
    const { chatId } = await fixtures.contactWithChat(email);
    const flowId = dataOf(await createFlow(connection._id, labelId)).createFlow._id;
    await gql('mutation($f: String!) { publishFlow(flowId: $f) { _id } }', { f: flowId }, org.sessionToken);
    return { connection, chatId, flowId, email };
  }

  const deliver = async (connection: Connection, email: string) => {
    const response = await postWebhook(harness, connection._id, JSON.stringify({ customer: { email } }), {
      'x-webhook-secret': connection.secret ?? '',
    });
    expect(response.status, JSON.stringify(response.body)).to.equal(202);
  };

  it("labels the contact's chat when a webhook runs the flow, and labels it once however often it runs", async () => {
    const labelId = await newLabel();
    const { connection, chatId, flowId, email } = await labellingFlow(labelId);
    expect(await labelsOf(chatId)).to.deep.equal([]);
    await deliver(connection, email);
    const [run] = await finishedRuns(flowId, 1);
    expect(run).to.include({ status: 'COMPLETED', stepIndex: 1, error: null });
    expect(await labelsOf(chatId)).to.deep.equal([labelId]);
    await deliver(connection, email);
    const runs = await finishedRuns(flowId, 2);
    expect(runs.map((r) => r.status)).to.deep.equal(['COMPLETED', 'COMPLETED']);
    expect(await labelsOf(chatId)).to.deep.equal([labelId]);
  });

  it('fails the run when the label was archived after the flow was published, and labels nothing', async () => {
    const labelId = await newLabel();
    const { connection, chatId, flowId, email } = await labellingFlow(labelId);
    await gql('mutation($l: String!) { archiveLabel(labelId: $l) { archived } }', { l: labelId });
    await deliver(connection, email);
    const [run] = await finishedRuns(flowId, 1);
    expect(run?.status).to.equal('FAILED');
    expect(run?.stepIndex).to.equal(0);
    expect(await labelsOf(chatId)).to.deep.equal([]);
  });

  it('refuses at authoring an add-a-label step that names no label id (BAD_USER_INPUT)', async () => {
    const connection = await fixtures.connection({});
    for (const label of ['vip', '']) expectError(await createFlow(connection._id, label), 200, 'BAD_USER_INPUT');
  });
});
