import { expect } from 'chai';
import { ApiScope, eventually, newId } from '@svc/kit';
import { ALL_SCOPES_BUT_PARTNER, StackHarness, type TestOrg } from '../support/stack-harness';
import { WebhookFixtures, postWebhook } from '../support/webhooks';
import { PAGE, dataOf, expectError, type Page } from './inbox-fixtures';

interface FlowRun {
  _id: string;
  status: string;
  trigger: string;
  chatId: string | null;
  contactId: string | null;
  stepIndex: number;
  error: string | null;
}

type Step = Record<string, unknown> & { type: string };

const RUN_FIELDS = '_id status trigger chatId contactId stepIndex error';

/**
 * What each step of a flow does to the inbox and contacts, run end to end: a webhook (or apiStartFlowForChat) starts
 * the run, the flows runner executes it. The runner polls every 100 ms here, so a WAIT of one second resumes promptly.
 */
describe('Flows: the steps of a run (whole stack over HTTP)', function () {
  const harness = new StackHarness({ FLOWS_RUNNER_INTERVAL_MS: '100' });
  let org: TestOrg;
  let fixtures: WebhookFixtures;
  let key: string;
  let ownerId: string;

  const gql = <T>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    harness.graphql<T>(query, variables, as).then(dataOf);
  const asMember = <T>(query: string, variables: Record<string, unknown> = {}) =>
    gql<T>(query, variables, org.sessionToken);
  const keyWithout = async (scope: ApiScope) =>
    (await org.mintKey(ALL_SCOPES_BUT_PARTNER.filter((s) => s !== scope))).key;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('Flow steps');
    fixtures = new WebhookFixtures(harness, org);
    key = (await org.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
    const members = await gql<{ orgTeamMembers: { id: string; email: string | null }[] }>(
      '{ orgTeamMembers { id email } }',
    );
    ownerId = members.orgTeamMembers.find((m) => m.email === org.ownerEmail)?.id ?? '';
    expect(ownerId).to.have.length(24);
  });

  after(async () => harness.stop());

  /** A published flow (authoring is for member sessions only). */
  async function publishedFlow(trigger: Record<string, unknown>, steps: Step[]): Promise<string> {
    const created = await asMember<{ createFlow: { _id: string } }>(
      'mutation($i: CreateFlowInput!) { createFlow(input: $i) { _id } }',
      { i: { name: 'Steps', trigger, steps } },
    );
    await asMember('mutation($f: String!) { publishFlow(flowId: $f) { _id } }', { f: created.createFlow._id });
    return created.createFlow._id;
  }

  const runsOf = async (flowId: string) =>
    (
      await asMember<{ flowRuns: { data: FlowRun[] } }>(
        `query($f: String!) { flowRuns(flowId: $f, input: { limit: 100 }) { data { ${RUN_FIELDS} } } }`,
        { f: flowId },
      )
    ).flowRuns.data;
  /** The flow's one run once it has finished (completed or failed). */
  const finishedRun = (flowId: string) =>
    eventually(
      async () => {
        const [run, ...others] = await runsOf(flowId);
        expect(others, 'one run').to.deep.equal([]);
        return run?.status === 'COMPLETED' || run?.status === 'FAILED' ? run : undefined;
      },
      30_000,
      'the run to finish',
    );

  const chat = async (chatId: string) =>
    (
      await gql<{ chat: { status: string; assigneeId: string | null } }>(
        'query($c: String!) { chat(chatId: $c) { status assigneeId } }',
        { c: chatId },
      )
    ).chat;
  const notesOf = async (chatId: string) =>
    (
      await gql<{ getChatNotes: Page<{ text: string; internal: boolean }> }>(
        `query($c: String!) { getChatNotes(chatId: $c, input: { limit: 100 }) ${PAGE('text internal')} }`,
        { c: chatId },
      )
    ).getChatNotes.data;
  const messageTexts = async (chatId: string, as: string) =>
    (
      await gql<{ getMessages: Page<{ text: string | null }> }>(
        `query($c: String!) { getMessages(chatId: $c, input: { limit: 100 }) ${PAGE('text')} }`,
        { c: chatId },
        as,
      )
    ).getMessages.data.map((m) => m.text);
  const attributesOf = async (contactId: string) =>
    (
      await gql<{ contactApi: { customAttributes: Record<string, unknown> | null } }>(
        'query($id: ID!) { contactApi(id: $id) { customAttributes } }',
        { id: contactId },
      )
    ).contactApi.customAttributes;

  /** A people field of the org: a "set a contact attribute" step may only write one (decision 0158). */
  const define = (key: string, type: string) =>
    gql('mutation($i: CreatePeopleFieldDefinitionInput!) { createPeopleFieldDefinition(input: $i) { id } }', {
      i: { key, label: key, type },
    });

  /**
   * A connection, a contact of `email` owning a chat (unless `withChat` is false), and a published flow of the
   * connection with `steps`; `deliver` posts an accepted request whose payload carries `order.id`.
   */
  async function webhookFlow(steps: Step[], withChat = true) {
    const email = `steps-${newId()}@example.com`;
    const connection = await fixtures.connection({});
    let contactId: string;
    let chatId = '';
    if (withChat) ({ contactId, chatId } = await fixtures.contactWithChat(email));
    else
      contactId = (
        await gql<{ createContactApi: { id: string } }>(
          'mutation($i: ContactApiInput!) { createContactApi(input: $i) { id } }',
          { i: { name: 'No Chat', email } },
        )
      ).createContactApi.id;
    const flowId = await publishedFlow({ type: 'WEBHOOK_RECEIVED', connectionId: connection._id }, steps);
    const deliver = async (orderId: unknown) => {
      const body = JSON.stringify({ customer: { email }, order: { id: orderId } });
      const response = await postWebhook(harness, connection._id, body, {
        'x-webhook-secret': connection.secret ?? '',
      });
      expect(response.status, JSON.stringify(response.body)).to.equal(202);
      expect(response.body.flows?.map((f) => f.id)).to.deep.equal([flowId]);
    };
    return { contactId, chatId, flowId, deliver };
  }

  describe('Flows.ADD_NOTE', () => {
    it("posts the rendered note to the contact's chat, readable with NOTES_WRITE and by no one without it", async () => {
      const { chatId, flowId, deliver } = await webhookFlow([
        { type: 'ADD_NOTE', text: 'Order {{webhook.order.id}} needs review' },
      ]);
      const orderId = newId();
      await deliver(orderId);
      expect(await finishedRun(flowId)).to.include({ status: 'COMPLETED', stepIndex: 1, error: null });
      const note = `Order ${orderId} needs review`;
      expect(await notesOf(chatId)).to.deep.equal([{ text: note, internal: true }]);
      expect(await messageTexts(chatId, key)).to.include(note);
      expect(await messageTexts(chatId, await keyWithout(ApiScope.NOTES_WRITE))).not.to.include(note);
    });
  });

  describe('Flows.SET_CONTACT_ATTRIBUTE', () => {
    before(async () => {
      await define('tier', 'TEXT');
      await define('last_order', 'TEXT');
      await define('order_count', 'NUMBER');
    });

    it("merges the rendered value into the contact's custom attributes", async () => {
      const { contactId, flowId, deliver } = await webhookFlow([
        { type: 'SET_CONTACT_ATTRIBUTE', attributeKey: 'last_order', attributeValue: 'order {{webhook.order.id}}' },
      ]);
      await gql('mutation($id: ID!, $i: ContactApiInput!) { updateContactApi(id: $id, input: $i) { id } }', {
        id: contactId,
        i: { customAttributes: { tier: 'gold' } },
      });
      await deliver(4711);
      expect(await finishedRun(flowId)).to.include({ status: 'COMPLETED', stepIndex: 1, error: null });
      expect(await attributesOf(contactId)).to.deep.equal({ tier: 'gold', last_order: 'order 4711' });
    });

    it("stores the rendered text as the field's type, and fails the run naming the field when it does not parse", async () => {
      const { contactId, flowId, deliver } = await webhookFlow([
        { type: 'SET_CONTACT_ATTRIBUTE', attributeKey: 'order_count', attributeValue: '{{webhook.order.id}}' },
      ]);
      await deliver(12);
      expect(await finishedRun(flowId)).to.include({ status: 'COMPLETED', error: null });
      expect(await attributesOf(contactId)).to.deep.equal({ order_count: 12 });
      await deliver('many');
      const failed = await eventually(async () => {
        const runs = await runsOf(flowId);
        return runs.find((run) => run.status === 'FAILED');
      });
      expect(failed?.error).to.equal(
        'the contact attribute could not be set: customAttributes.order_count must be a number',
      );
      expect(await attributesOf(contactId)).to.deep.equal({ order_count: 12 });
    });

    it('refuses a flow whose step sets an attribute that is not a people field of the org (NOT_FOUND naming the step)', async () => {
      const refused = await harness.graphql(
        'mutation($i: CreateFlowInput!) { createFlow(input: $i) { _id } }',
        {
          i: {
            name: 'Unknown field',
            trigger: { type: 'STARTED_FOR_CHAT' },
            steps: [
              { type: 'ADD_NOTE', text: 'x' },
              { type: 'SET_CONTACT_ATTRIBUTE', attributeKey: 'shoe_size', attributeValue: '42' },
            ],
          },
        },
        org.sessionToken,
      );
      expectError(refused, 200, 'NOT_FOUND');
      expect(refused.body.errors?.[0]?.extensions?.field).to.equal('steps[1]');
    });
  });

  describe('Flows.ASSIGN', () => {
    const CREATE = 'mutation($i: CreateFlowInput!) { createFlow(input: $i) { _id } }';
    const UPDATE = 'mutation($f: String!, $i: UpdateFlowInput!) { updateFlow(flowId: $f, input: $i) { _id } }';
    const PUBLISH = 'mutation($f: String!) { publishFlow(flowId: $f) { _id status } }';
    const routing = (assigneeId: string): Step[] => [
      { type: 'ADD_NOTE', text: 'routing' },
      { type: 'ASSIGN', assigneeId },
    ];
    const draft = async (steps: Step[]) =>
      (
        await asMember<{ createFlow: { _id: string } }>(CREATE, {
          i: { name: 'Route', trigger: { type: 'STARTED_FOR_CHAT' }, steps },
        })
      ).createFlow._id;
    const flowOf = async (flowId: string) =>
      (
        await asMember<{ flow: { status: string; steps: { assigneeId: string | null }[] } }>(
          'query($f: String!) { flow(flowId: $f) { status steps { assigneeId } } }',
          { f: flowId },
        )
      ).flow;

    it("assigns the contact's chat to the operator", async () => {
      const { chatId, flowId, deliver } = await webhookFlow([{ type: 'ASSIGN', assigneeId: ownerId }]);
      expect((await chat(chatId)).assigneeId).to.equal(null);
      await deliver(newId());
      expect(await finishedRun(flowId)).to.include({ status: 'COMPLETED', stepIndex: 1, error: null });
      expect((await chat(chatId)).assigneeId).to.equal(ownerId);
    });

    it("refuses at authoring an assignee who is no member of the org (NOT_FOUND naming the step), another org's too", async () => {
      const other = await harness.newOrg('Elsewhere');
      const kept = await draft(routing(ownerId));
      for (const assigneeId of [newId(), await other.addMember()]) {
        for (const response of [
          await harness.graphql(
            CREATE,
            { i: { name: 'Route', trigger: { type: 'STARTED_FOR_CHAT' }, steps: routing(assigneeId) } },
            org.sessionToken,
          ),
          await harness.graphql(UPDATE, { f: kept, i: { steps: routing(assigneeId) } }, org.sessionToken),
        ]) {
          expectError(response, 200, 'NOT_FOUND');
          expect(response.body.errors?.[0]?.extensions?.field).to.equal('steps[1]');
          expect(response.body.errors?.[0]?.message).to.equal(
            'steps[1] assigns someone who is not a member of this org',
          );
        }
      }
      expect((await flowOf(kept)).steps.map((s) => s.assigneeId)).to.deep.equal([null, ownerId]);
    });

    it('refuses to publish a draft whose assignee was removed from the org since (FAILED_PRECONDITION)', async () => {
      const agent = await org.addMember();
      const flowId = await draft(routing(agent));
      await org.removeMember(agent);
      const response = await harness.graphql(PUBLISH, { f: flowId }, org.sessionToken);
      expectError(response, 200, 'FAILED_PRECONDITION');
      expect(response.body.errors?.[0]?.extensions?.field).to.equal('steps[1]');
      expect((await flowOf(flowId)).status).to.equal('DRAFT');
    });

    it('fails the run at the step, saying so, when the assignee was removed after publishing, assigning nobody', async () => {
      const agent = await org.addMember();
      const { chatId, flowId, deliver } = await webhookFlow(routing(agent));
      await org.removeMember(agent);
      await deliver(newId());
      expect(await finishedRun(flowId)).to.include({
        status: 'FAILED',
        stepIndex: 1,
        error: `the assignee ${agent} is no longer a member of the org`,
      });
      expect(await notesOf(chatId)).to.deep.equal([{ text: 'routing', internal: true }]);
      expect((await chat(chatId)).assigneeId).to.equal(null);
    });
  });

  describe('Flows.CLOSE_CHAT', () => {
    it("closes the contact's chat", async () => {
      const { chatId, flowId, deliver } = await webhookFlow([{ type: 'CLOSE_CHAT' }]);
      expect((await chat(chatId)).status).to.equal('OPEN');
      await deliver(newId());
      expect(await finishedRun(flowId)).to.include({ status: 'COMPLETED', stepIndex: 1, error: null });
      expect((await chat(chatId)).status).to.equal('CLOSED');
    });
  });

  describe('Flows.WAIT', () => {
    it('holds the run WAITING before the next step, then resumes it and completes', async () => {
      const { chatId, flowId, deliver } = await webhookFlow([
        { type: 'WAIT', waitSeconds: 1 },
        { type: 'ADD_NOTE', text: 'after the wait {{webhook.order.id}}' },
      ]);
      const orderId = newId();
      await deliver(orderId);
      // Notes read before a run seen WAITING: the step after the wait cannot have run yet.
      const notesWhileWaiting = await eventually(
        async () => {
          const notes = await notesOf(chatId);
          const [run] = await runsOf(flowId);
          if (run?.status === 'COMPLETED') throw new Error('the run completed without being seen WAITING');
          return run?.status === 'WAITING' ? { notes, run } : undefined;
        },
        30_000,
        'the run WAITING',
      );
      expect(notesWhileWaiting.run).to.include({ stepIndex: 1, error: null });
      expect(notesWhileWaiting.notes).to.deep.equal([]);
      expect(await finishedRun(flowId)).to.include({ status: 'COMPLETED', stepIndex: 2, error: null });
      expect(await notesOf(chatId)).to.deep.equal([{ text: `after the wait ${orderId}`, internal: true }]);
    });
  });

  describe('a failing step', () => {
    it('records the run FAILED at that step with its error, keeping what earlier steps did', async () => {
      await define('seen', 'TEXT');
      const { contactId, flowId, deliver } = await webhookFlow(
        [
          { type: 'SET_CONTACT_ATTRIBUTE', attributeKey: 'seen', attributeValue: 'yes' },
          { type: 'ASSIGN', assigneeId: ownerId },
          { type: 'CLOSE_CHAT' },
        ],
        false,
      );
      await deliver(newId());
      expect(await finishedRun(flowId)).to.include({
        status: 'FAILED',
        stepIndex: 1,
        error: 'the contact has no chat to act on',
      });
      expect(await attributesOf(contactId)).to.deep.equal({ seen: 'yes' });
    });
  });

  describe('Flows.apiStartFlowForChat / apiStopFlowForChat', () => {
    const START = `mutation($c: String!, $f: String!) { apiStartFlowForChat(chatId: $c, flowId: $f) { ${RUN_FIELDS} } }`;
    const STOP = 'mutation($c: String!, $f: String!) { apiStopFlowForChat(chatId: $c, flowId: $f) }';

    /** A chat and a published flow started for chats, whose run waits an hour before posting a note. */
    async function chatFlow() {
      const chatId = await org.openChat();
      const flowId = await publishedFlow({ type: 'STARTED_FOR_CHAT' }, [
        { type: 'WAIT', waitSeconds: 3600 },
        { type: 'ADD_NOTE', text: 'an hour later' },
      ]);
      return { chatId, flowId };
    }

    it('refuses both without CONVERSATIONS_MANAGE (403 FORBIDDEN), starting nothing', async () => {
      const { chatId, flowId } = await chatFlow();
      const other = await keyWithout(ApiScope.CONVERSATIONS_MANAGE);
      for (const mutation of [START, STOP]) {
        const response = await harness.graphql(mutation, { c: chatId, f: flowId }, other);
        expectError(response, 403, 'FORBIDDEN');
        expect(response.body.errors?.[0]?.extensions?.scope).to.equal(ApiScope.CONVERSATIONS_MANAGE);
      }
      expect(await runsOf(flowId)).to.deep.equal([]);
    });

    it("starts a run in the chat for the chat's contact, and stops it", async () => {
      const { chatId, flowId } = await chatFlow();
      const contactId = (
        await gql<{ chat: { contact: { _id: string } } }>(
          'query($c: String!) { chat(chatId: $c) { contact { _id } } }',
          {
            c: chatId,
          },
        )
      ).chat.contact._id;
      const started = (await gql<{ apiStartFlowForChat: FlowRun }>(START, { c: chatId, f: flowId }))
        .apiStartFlowForChat;
      expect(started).to.include({ trigger: 'STARTED_FOR_CHAT', chatId, contactId, stepIndex: 0 });
      await eventually(async () => (await runsOf(flowId))[0]?.status === 'WAITING', 30_000, 'the run WAITING');
      expect((await gql<{ apiStopFlowForChat: boolean }>(STOP, { c: chatId, f: flowId })).apiStopFlowForChat).to.equal(
        true,
      );
      expect(await runsOf(flowId)).to.deep.equal([{ ...started, status: 'STOPPED', stepIndex: 1 }]);
      expect((await gql<{ apiStopFlowForChat: boolean }>(STOP, { c: chatId, f: flowId })).apiStopFlowForChat).to.equal(
        false,
      );
    });
  });
});
