import { expect } from 'chai';
import { ApiScope, eventually, newId } from '@svc/kit';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { WebhookFixtures, postWebhook, type Connection } from '../support/webhooks';
import { dataOf } from './inbox-fixtures';

const MESSAGES = 'query($chatId: String!) { getMessages(chatId: $chatId, input: { limit: 100 }) { data { text } } }';

/**
 * What the ingress caches (docs/decisions/0015) never outlives the change it depends on: publishing, unpublishing and
 * moving a flow, and a contact's new email or newest chat, apply to the next inbound request, because the ingress
 * evicts on flows' and contacts' events. Both cache TTLs are raised to their maximum (60 s) in this suite, so every
 * expectation below that is met well inside them was met by an eviction, not by the TTL.
 */
describe('Inbound webhooks see flow and contact changes at once (whole stack over HTTP)', function () {
  const harness = new StackHarness({ INGRESS_FLOWS_CACHE_MS: '60000', INGRESS_CONTACT_CACHE_MS: '60000' });
  let org: TestOrg;
  let fixtures: WebhookFixtures;
  let readerKey: string;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('Flow publishing');
    fixtures = new WebhookFixtures(harness, org);
    readerKey = (await org.mintKey([ApiScope.MESSAGES_READ])).key;
  });

  after(async () => harness.stop());

  const asMember = <T>(query: string, variables: Record<string, unknown>) =>
    harness.graphql<T>(query, variables, org.sessionToken).then(dataOf);
  const flowAction = (action: 'publishFlow' | 'unpublishFlow', flowId: string) =>
    asMember(`mutation($f: String!) { ${action}(flowId: $f) { _id status } }`, { f: flowId });
  const moveFlow = (flowId: string, connectionId: string) =>
    asMember('mutation($f: String!, $i: UpdateFlowInput!) { updateFlow(flowId: $f, input: $i) { _id } }', {
      f: flowId,
      i: { trigger: { type: 'WEBHOOK_RECEIVED', connectionId } },
    });
  const runsOf = async (flowId: string) =>
    (
      await asMember<{ flowRuns: { data: { status: string; error: string | null }[] } }>(
        'query($f: String!) { flowRuns(flowId: $f, input: { limit: 100 }) { data { status error } } }',
        { f: flowId },
      )
    ).flowRuns.data;
  const messagesOf = async (chatId: string) =>
    (
      await harness.graphql<{ getMessages: { data: { text: string }[] } }>(MESSAGES, { chatId }, readerKey).then(dataOf)
    ).getMessages.data.map((m) => m.text);

  /** A connection with a contact owning a chat; `send` posts a valid request and answers status and flow ids. */
  async function connectionWithContact() {
    const email = `p-${newId()}@example.com`;
    const connection: Connection = await fixtures.connection({});
    const { chatId, contactId } = await fixtures.contactWithChat(email);
    const send = async (target = connection, as = email) => {
      const n = newId();
      const response = await postWebhook(harness, target._id, JSON.stringify({ customer: { email: as }, n }), {
        'x-webhook-secret': target.secret ?? '',
      });
      return { status: response.status, flows: response.body.flows?.map((f) => f.id) ?? [], n };
    };
    return { connection, chatId, contactId, email, send };
  }

  describe('flows', () => {
    it('stops naming an unpublished flow on the next requests, and names it again once republished', async () => {
      const { connection, send } = await connectionWithContact();
      const flowId = await fixtures.publishedFlow(connection._id);
      expect(await send()).to.deep.include({ status: 202, flows: [flowId] });
      await flowAction('unpublishFlow', flowId);
      await eventually(async () => (await send()).status === 404, 30_000, 'TRIGGER_NOT_FOUND after unpublishing');
      await flowAction('publishFlow', flowId);
      expect(await send()).to.deep.include({ status: 202, flows: [flowId] });
    });

    it('names a flow published next to a cached one', async () => {
      const { connection, send } = await connectionWithContact();
      const first = await fixtures.publishedFlow(connection._id);
      expect((await send()).flows).to.deep.equal([first]);
      const second = await fixtures.publishedFlow(connection._id);
      await eventually(async () => (await send()).flows.length === 2, 30_000, 'both flows named');
      expect((await send()).flows).to.deep.equal([first, second]);
    });

    it('follows a flow moved to another connection', async () => {
      const { connection, send } = await connectionWithContact();
      const other = await fixtures.connection({});
      const stays = await fixtures.publishedFlow(connection._id);
      const moves = await fixtures.publishedFlow(connection._id);
      await fixtures.publishedFlow(other._id);
      expect((await send()).flows).to.deep.equal([stays, moves]);
      await moveFlow(moves, other._id);
      await eventually(async () => (await send()).flows.length === 1, 30_000, 'the moved flow gone from the old one');
      expect((await send()).flows).to.deep.equal([stays]);
      expect((await send(other)).flows).to.include(moves);
    });

    it('records a flow unpublished while its requests waited in the backlog as STOPPED, running none of its steps', async function () {
      this.timeout(60_000);
      const { connection, chatId, send } = await connectionWithContact();
      const flowId = await fixtures.publishedFlow(connection._id, 'should never be sent {{webhook.n}}');
      await harness.stack.flows.stopConsumer();
      try {
        expect(await send()).to.deep.include({ status: 202, flows: [flowId] });
        await flowAction('unpublishFlow', flowId);
      } finally {
        await harness.stack.flows.startConsumer();
      }
      await eventually(async () => (await runsOf(flowId)).length === 1, 30_000, 'the run recorded');
      expect(await runsOf(flowId)).to.deep.equal([
        { status: 'STOPPED', error: 'the flow was unpublished before this run started' },
      ]);
      expect((await messagesOf(chatId)).some((text) => text.startsWith('should never be sent'))).to.equal(false);
    });
  });

  describe('contacts', () => {
    it('writes to the chat a contact opened after an earlier request resolved it', async function () {
      this.timeout(60_000);
      const { connection, chatId, contactId, email, send } = await connectionWithContact();
      await fixtures.publishedFlow(connection._id, 'order {{webhook.n}}');
      const first = await send();
      await eventually(async () => (await messagesOf(chatId)).includes(`order ${first.n}`), 30_000, 'first run');
      const newer = await org.openChat({ _id: contactId, email });
      await fixtures.waitForChatOwnership(contactId, newer);
      /** Where the run of request `n` wrote its message. */
      const landedIn = (n: string) =>
        eventually(
          async () => {
            if ((await messagesOf(newer)).includes(`order ${n}`)) return 'the newer chat';
            if ((await messagesOf(chatId)).includes(`order ${n}`)) return 'the older chat';
            return undefined;
          },
          30_000,
          `the run of request ${n}`,
        );
      // Applies once contacts' contact.updated has been relayed and heard (milliseconds; the caches' TTL here is 60 s,
      // so only the eviction can get there within the deadline).
      await eventually(
        async () => (await landedIn((await send()).n)) === 'the newer chat',
        30_000,
        'a run in the newer chat',
      );
      // From then on, every request writes to the newer chat.
      for (let i = 0; i < 3; i++) expect(await landedIn((await send()).n)).to.equal('the newer chat');
    });

    it('stops resolving an email the contact no longer has', async () => {
      const { connection, contactId, send } = await connectionWithContact();
      await fixtures.publishedFlow(connection._id);
      expect((await send()).status).to.equal(202);
      const renamed = `renamed-${newId()}@example.com`;
      await asMember('mutation($id: ID!, $i: ContactApiInput!) { updateContactApi(id: $id, input: $i) { id } }', {
        id: contactId,
        i: { email: renamed },
      });
      await eventually(async () => (await send()).status === 422, 30_000, 'IDENTIFIER_NOT_FOUND for the old email');
      expect((await send(connection, renamed)).status).to.equal(202);
    });
  });
});
