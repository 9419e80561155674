import { expect } from 'chai';
import { newId } from '@svc/kit';
import { StackHarness, type GraphQLResponse, type TestOrg } from '../support/stack-harness';
import {
  WebhookFixtures,
  allFlowRuns,
  contactWithChatFrom,
  historyPage,
  postWebhook,
  settledFlowRuns,
  type Connection,
  type HistoryRow,
} from '../support/webhooks';

/** Spec 8: the capture tunnel stays open 5 minutes. */
const CAPTURE_WINDOW_MS = 5 * 60 * 1000;

const ids = (rows: HistoryRow[]) => rows.map((r) => r.requestId);

/** The ingress's stored history row (read from its database: a deleted connection's rows are no longer listed). */
interface StoredRequest {
  id: string;
  orgId: string;
  connectionId: string;
  requestId: string | null;
  outcome: string;
  httpStatus: number;
}

/**
 * Connection management through the gateway with a member session, beyond the matrix of webhooks.test.ts: deletion,
 * org isolation, history paging and filtering, the capture tunnel's 5 minutes, every identifier type end to end and
 * the live SAMPLE_CAPTURED row.
 */
describe('Inbound webhook connections: management, history and identifiers (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let fixtures: WebhookFixtures;
  let other: TestOrg;
  let otherFixtures: WebhookFixtures;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('Connections');
    fixtures = new WebhookFixtures(harness, org);
    other = await harness.newOrg('Someone else');
    otherFixtures = new WebhookFixtures(harness, other);
  });

  after(async () => harness.stop());

  const gql = <T = Record<string, unknown>>(query: string, variables: Record<string, unknown>, as = org) =>
    harness.graphql<T>(query, variables, as.sessionToken);
  const codeOf = (response: GraphQLResponse<unknown>) => response.body.errors?.[0]?.extensions?.code;
  /** A channel of the org (a web integration): a connection or identity may name only these (decision 0042). */
  const channelOfOrg = async () => {
    const created = await gql<{ createWebIntegration: { integration: { id: string } } }>(
      'mutation { createWebIntegration(input: { name: "Site" }) { integration { id } } }',
      {},
    );
    const id = created.body.data?.createWebIntegration.integration.id;
    if (!id) throw new Error(`createWebIntegration failed: ${JSON.stringify(created.body)}`);
    return id;
  };

  const GET =
    'query($id: String!) { inboundConnection(id: $id) { _id status captureOpenUntil payloadSchema { version } } }';
  const LIST = '{ inboundConnections { _id } }';
  const DELETE = 'mutation($id: String!) { deleteInboundConnection(id: $id) }';

  async function listedIds(as: TestOrg): Promise<string[]> {
    const response = await gql<{ inboundConnections: { _id: string }[] }>(LIST, {}, as);
    expect(response.body.errors, JSON.stringify(response.body)).to.equal(undefined);
    return response.body.data?.inboundConnections.map((c) => c._id) ?? [];
  }

  const history = (connectionId: string, page: Parameters<typeof historyPage>[3] = {}) =>
    historyPage(harness, org.sessionToken, connectionId, page);

  async function historyRow(connectionId: string, requestId: string): Promise<HistoryRow> {
    const row = (await history(connectionId, { limit: 100 })).data.find((r) => r.requestId === requestId);
    if (!row) throw new Error(`no history row with x-request-id ${requestId}`);
    return row;
  }

  const storedRequest = async (id: string) =>
    (await harness.stack.ingress.dataSource
      .getRepository('inbound_requests')
      .findOneBy({ id })) as StoredRequest | null;

  /** A Shared Secret connection of the given identifier with a published flow bound to it. */
  async function boundConnection(input: Record<string, unknown> = {}) {
    const connection = await fixtures.connection(input);
    const flowId = await fixtures.publishedFlow(connection._id);
    return { connection, flowId, secret: { 'x-webhook-secret': connection.secret ?? '' } };
  }

  /** Posts with a fresh x-request-id; returns the response and the id it was sent with. */
  async function post(connection: Pick<Connection, '_id'>, payload: unknown, headers: Record<string, string>) {
    const requestId = `req-${newId()}`;
    const response = await postWebhook(harness, connection._id, JSON.stringify(payload), {
      ...headers,
      'x-request-id': requestId,
    });
    return { response, requestId };
  }

  describe('deleteInboundConnection', () => {
    it('deletes the connection: inboundConnection and its history answer NOT_FOUND, the list drops it, a second delete is NOT_FOUND', async () => {
      const { connection } = await boundConnection();
      const kept = await fixtures.connection({ name: 'Kept' });
      expect(await listedIds(org)).to.include.members([connection._id, kept._id]);

      const deleted = await gql<{ deleteInboundConnection: boolean }>(DELETE, { id: connection._id });
      expect(deleted.body.data?.deleteInboundConnection, JSON.stringify(deleted.body)).to.equal(true);

      const got = await gql(GET, { id: connection._id });
      expect(codeOf(got), JSON.stringify(got.body)).to.equal('NOT_FOUND');
      expect(got.body.data ?? null).to.equal(null);
      const rows = await gql('query($id: String!) { inboundConnectionHistory(id: $id) { data { _id } } }', {
        id: connection._id,
      });
      expect(codeOf(rows), JSON.stringify(rows.body)).to.equal('NOT_FOUND');
      const listed = await listedIds(org);
      expect(listed).not.to.include(connection._id);
      expect(listed).to.include(kept._id);
      expect(codeOf(await gql(DELETE, { id: connection._id }))).to.equal('NOT_FOUND');
      // Only that connection went.
      expect(codeOf(await gql(GET, { id: kept._id }))).to.equal(undefined);
    });

    it('answers a POST to a deleted connection 404 TRIGGER_NOT_FOUND, logged without an org; the earlier history stays stored', async () => {
      const { connection, flowId, secret } = await boundConnection();
      const email = `deleted-${newId()}@example.com`;
      await fixtures.contactWithChat(email);
      const before = await post(connection, { customer: { email } }, secret);
      expect([before.response.status, before.response.body.outcome]).to.deep.equal([202, 'ACCEPTED']);
      const acceptedId = before.response.body.requestId ?? '';
      await settledFlowRuns(harness, org.sessionToken, flowId, acceptedId);

      expect((await gql(DELETE, { id: connection._id })).body.data).to.deep.equal({ deleteInboundConnection: true });
      // The same sender, with the same secret and a payload naming the same contact.
      const after = await post(connection, { customer: { email } }, secret);
      expect([after.response.status, after.response.body.outcome]).to.deep.equal([404, 'TRIGGER_NOT_FOUND']);
      expect(after.response.headers.get('x-request-id')).to.equal(after.requestId);
      expect(after.response.body.requestId).to.match(/^[0-9a-f]{24}$/);

      // Logged like a request to an id that never existed: the connection (and so its org) is gone.
      const logged = await storedRequest(after.response.body.requestId ?? '');
      expect(logged).to.deep.include({
        orgId: '',
        connectionId: connection._id,
        requestId: after.requestId,
        outcome: 'TRIGGER_NOT_FOUND',
        httpStatus: 404,
      });
      // The rows written before the deletion stay (until the 30-day retention), still under the org.
      expect(await storedRequest(acceptedId)).to.deep.include({
        orgId: org.id,
        connectionId: connection._id,
        requestId: before.requestId,
        outcome: 'ACCEPTED',
      });
      // The bound flow still exists and ran only for the request accepted before the deletion.
      expect((await allFlowRuns(harness, org.sessionToken, flowId)).map((r) => r.requestId)).to.deep.equal([
        acceptedId,
      ]);
    });
  });

  describe('org isolation', () => {
    it("answers NOT_FOUND for another org's connection to every read and action, and changes nothing of it", async () => {
      const theirs = await otherFixtures.connection({ name: 'Theirs' });
      const actions: [string, string, Record<string, unknown>][] = [
        ['inboundConnection', GET, {}],
        ['inboundConnectionHistory', 'query($id: String!) { inboundConnectionHistory(id: $id) { data { _id } } }', {}],
        [
          'updateInboundConnection',
          'mutation($id: String!, $n: String!) { updateInboundConnection(id: $id, input: { name: $n }) { _id } }',
          { n: 'Taken over' },
        ],
        ...['rotateInboundConnectionSecret', 'pauseInboundConnection', 'captureInboundConnectionSchema'].map(
          (name): [string, string, Record<string, unknown>] => [
            name,
            `mutation($id: String!) { ${name}(id: $id) { _id } }`,
            {},
          ],
        ),
        [
          'injectInboundConnectionPayload',
          'mutation($id: String!, $p: JSON!) { injectInboundConnectionPayload(id: $id, payload: $p) { _id } }',
          { p: { injected: true } },
        ],
        ['deleteInboundConnection', DELETE, {}],
      ];
      for (const [name, query, variables] of actions) {
        const response = await gql(query, { id: theirs._id, ...variables });
        expect(codeOf(response), `${name}: ${JSON.stringify(response.body)}`).to.equal('NOT_FOUND');
      }
      // Untouched: still theirs, active, named as before, no schema, no tunnel, and its secret still verifies.
      const mine = await gql<{
        inboundConnection: {
          _id: string;
          status: string;
          captureOpenUntil: string | null;
          payloadSchema: { version: number };
        };
      }>(GET, { id: theirs._id }, other);
      expect(mine.body.data?.inboundConnection, JSON.stringify(mine.body)).to.deep.equal({
        _id: theirs._id,
        status: 'ACTIVE',
        captureOpenUntil: null,
        payloadSchema: { version: 0 },
      });
      // The secret returned at creation still authenticates (it was not rotated): no contact is named, so 422.
      const stillVerifies = await postWebhook(harness, theirs._id, '{}', { 'x-webhook-secret': theirs.secret ?? '' });
      expect([stillVerifies.status, stillVerifies.body.outcome]).to.deep.equal([422, 'IDENTIFIER_NOT_FOUND']);
      // Nothing was injected: their history holds only that request.
      const theirHistory = await historyPage(harness, other.sessionToken, theirs._id, { limit: 100 });
      expect(theirHistory.data.map((r) => r.outcome)).to.deep.equal(['IDENTIFIER_NOT_FOUND']);
    });

    it("lists only the org's own connections", async () => {
      const mine = [await fixtures.connection({ name: 'Mine 1' }), await fixtures.connection({ name: 'Mine 2' })];
      const otherOrg = await harness.newOrg('A third org');
      const theirs = [
        await new WebhookFixtures(harness, otherOrg).connection({ name: 'Theirs 1' }),
        await new WebhookFixtures(harness, otherOrg).connection({ name: 'Theirs 2' }),
      ];
      const listedMine = await listedIds(org);
      expect(listedMine).to.include.members(mine.map((c) => c._id));
      expect(listedMine).not.to.include.any.members(theirs.map((c) => c._id));
      expect(await listedIds(otherOrg)).to.deep.equal(theirs.map((c) => c._id));
    });
  });

  describe('inboundConnectionHistory', () => {
    /** Seven rows, oldest first: UNAUTHORIZED and IDENTIFIER_NOT_FOUND alternating (no flow or contact needed). */
    async function sevenRows() {
      const connection = await fixtures.connection({});
      const secret = connection.secret ?? '';
      const sent: { requestId: string; outcome: string }[] = [];
      const send = async (n: number) => {
        const unauthorized = n % 2 === 1;
        const { response, requestId } = await post(
          connection,
          { customer: { email: `nobody-${n}-${newId()}@example.com` } },
          { 'x-webhook-secret': unauthorized ? 'whs_wrong' : secret },
        );
        const outcome = unauthorized ? 'UNAUTHORIZED' : 'IDENTIFIER_NOT_FOUND';
        expect(response.body.outcome).to.equal(outcome);
        sent.push({ requestId, outcome });
        return requestId;
      };
      for (let n = 1; n <= 7; n += 1) await send(n);
      return { connection, sent, send };
    }

    it('pages newest first with limit 3, never skipping or repeating, also while new rows arrive', async () => {
      const { connection, sent, send } = await sevenRows();
      const newestFirst = sent.map((s) => s.requestId).reverse();

      const whole = await history(connection._id, { limit: 100 });
      expect(ids(whole.data)).to.deep.equal(newestFirst);
      expect([whole.hasNext, whole.hasPrevious]).to.deep.equal([false, false]);
      // The documented order: newest first, by creation time (then id).
      const keys = whole.data.map((r) => `${r.createdAt}|${r._id}`);
      expect(keys).to.deep.equal([...keys].sort().reverse());

      const first = await history(connection._id, { limit: 3 });
      expect(ids(first.data)).to.deep.equal(newestFirst.slice(0, 3));
      expect([first.hasNext, first.hasPrevious]).to.deep.equal([true, false]);

      // A request arriving between two page reads is newer than the cursor: it shifts nothing.
      const eighth = await send(8);

      const second = await history(connection._id, { limit: 3, cursor: first.nextCursor });
      expect(ids(second.data)).to.deep.equal(newestFirst.slice(3, 6));
      expect([second.hasNext, second.hasPrevious]).to.deep.equal([true, true]);
      const third = await history(connection._id, { limit: 3, cursor: second.nextCursor });
      expect(ids(third.data)).to.deep.equal(newestFirst.slice(6));
      expect([third.hasNext, third.hasPrevious]).to.deep.equal([false, true]);

      const paged = [...first.data, ...second.data, ...third.data].map((r) => r._id);
      expect(new Set(paged).size).to.equal(7);
      expect(paged).to.deep.equal(whole.data.map((r) => r._id));

      // Paging back from the last page gives the middle page again; from there, the page before now ends at the
      // eighth request (it is newer than all three).
      const back = await history(connection._id, { limit: 3, cursor: third.previousCursor, isBefore: true });
      expect(ids(back.data)).to.deep.equal(newestFirst.slice(3, 6));
      const backAgain = await history(connection._id, { limit: 3, cursor: back.previousCursor, isBefore: true });
      expect(ids(backAgain.data)).to.deep.equal(newestFirst.slice(0, 3));
      expect(backAgain.hasPrevious).to.equal(true);
      expect(ids((await history(connection._id, { limit: 1 })).data)).to.deep.equal([eighth]);
    });

    it('filters by outcome, paging within the filter', async () => {
      const { connection, sent } = await sevenRows();
      const newestFirst = (outcome: string) =>
        sent
          .filter((s) => s.outcome === outcome)
          .map((s) => s.requestId)
          .reverse();
      expect(newestFirst('UNAUTHORIZED')).to.have.length(4);

      const first = await history(connection._id, { limit: 3, outcome: 'UNAUTHORIZED' });
      const second = await history(connection._id, { limit: 3, outcome: 'UNAUTHORIZED', cursor: first.nextCursor });
      expect([first.hasNext, second.hasNext]).to.deep.equal([true, false]);
      expect(ids([...first.data, ...second.data])).to.deep.equal(newestFirst('UNAUTHORIZED'));
      for (const row of [...first.data, ...second.data])
        expect(row).to.include({ outcome: 'UNAUTHORIZED', httpStatus: 401 });

      const notFound = await history(connection._id, { limit: 100, outcome: 'IDENTIFIER_NOT_FOUND' });
      expect(ids(notFound.data)).to.deep.equal(newestFirst('IDENTIFIER_NOT_FOUND'));
      for (const row of notFound.data) expect(row).to.include({ outcome: 'IDENTIFIER_NOT_FOUND', httpStatus: 422 });
      expect((await history(connection._id, { limit: 100, outcome: 'ACCEPTED' })).data).to.deep.equal([]);
    });
  });

  describe('capture tunnel', () => {
    const setCaptureUntil = (connectionId: string, until: Date) =>
      harness.stack.ingress.dataSource
        .getRepository('inbound_connections')
        .update({ id: connectionId }, { captureUntil: until });

    const getConnection = async (id: string) => {
      const response = await gql<{
        inboundConnection: { captureOpenUntil: string | null; payloadSchema: { version: number } };
      }>(GET, { id });
      const connection = response.body.data?.inboundConnection;
      if (!connection) throw new Error(JSON.stringify(response.body));
      return connection;
    };

    it('opens for 5 minutes from the capture action', async () => {
      const connection = await fixtures.connection({});
      const before = Date.now();
      const open = await fixtures.connectionAction('captureInboundConnectionSchema', connection._id);
      const after = Date.now();
      const until = Date.parse(open.captureOpenUntil ?? '');
      expect(until).to.be.within(before + CAPTURE_WINDOW_MS, after + CAPTURE_WINDOW_MS);
      expect((await getConnection(connection._id)).captureOpenUntil).to.equal(open.captureOpenUntil);
    });

    /*
     * Time is read from the system clock (`now()` in @svc/kit has no override), so instead of waiting 5 minutes the
     * tunnel's deadline is moved back in the ingress's table, as if that much time had passed since it opened (the
     * same way webhooks-auth.test.ts ages idempotency keys).
     */
    it('still captures 4 min 50 s after opening, and no longer 5 minutes after: then the payload is dispatched', async () => {
      const { connection, flowId, secret } = await boundConnection();
      const email = `tunnel-${newId()}@example.com`;
      await fixtures.contactWithChat(email);
      const elapsed = async (ms: number) => {
        const open = await fixtures.connectionAction('captureInboundConnectionSchema', connection._id);
        await setCaptureUntil(connection._id, new Date(Date.parse(open.captureOpenUntil ?? '') - ms));
      };

      await elapsed(CAPTURE_WINDOW_MS - 10_000);
      expect((await getConnection(connection._id)).captureOpenUntil).to.be.a('string');
      const captured = await post(connection, { customer: { email }, first: 1 }, secret);
      expect([captured.response.status, captured.response.body.outcome]).to.deep.equal([202, 'SAMPLE_CAPTURED']);
      expect((await getConnection(connection._id)).payloadSchema.version).to.equal(1);

      await elapsed(CAPTURE_WINDOW_MS + 1);
      expect((await getConnection(connection._id)).captureOpenUntil).to.equal(null);
      const accepted = await post(connection, { customer: { email }, second: 2 }, secret);
      expect([accepted.response.status, accepted.response.body.outcome]).to.deep.equal([202, 'ACCEPTED']);
      expect(accepted.response.body.flows?.map((f) => f.id)).to.deep.equal([flowId]);
      const unchanged = await getConnection(connection._id);
      expect(unchanged.payloadSchema.version).to.equal(1);
      const runs = await settledFlowRuns(harness, org.sessionToken, flowId, accepted.response.body.requestId ?? '');
      expect(runs.map((r) => r.requestId)).to.deep.equal([accepted.response.body.requestId]);
    });

    it('writes a SAMPLE_CAPTURED history row for a live POST, echoing x-request-id, and starts no flow', async () => {
      const { connection, flowId, secret } = await boundConnection();
      const email = `live-${newId()}@example.com`;
      await fixtures.contactWithChat(email);
      await fixtures.connectionAction('captureInboundConnectionSchema', connection._id);
      const captured = await post(connection, { customer: { email }, order: { id: 'sample' } }, secret);
      expect(captured.response.status).to.equal(202);
      expect(captured.response.body).to.deep.include({ outcome: 'SAMPLE_CAPTURED', flows: [] });
      expect(captured.response.headers.get('x-request-id')).to.equal(captured.requestId);

      const row = await historyRow(connection._id, captured.requestId);
      expect(row).to.deep.include({
        _id: captured.response.body.requestId,
        connectionId: connection._id,
        outcome: 'SAMPLE_CAPTURED',
        httpStatus: 202,
        flowIds: [],
        contactId: null,
        replay: false,
      });
      expect(row.headers['x-webhook-secret']).to.equal('[scrubbed]');
      const captures = await history(connection._id, { outcome: 'SAMPLE_CAPTURED' });
      expect(ids(captures.data)).to.deep.equal([captured.requestId]);

      // The next request is dispatched; by the time it has run, a dispatched sample would have run before it.
      const accepted = await post(connection, { customer: { email } }, secret);
      expect(accepted.response.body.outcome).to.equal('ACCEPTED');
      const runs = await settledFlowRuns(harness, org.sessionToken, flowId, accepted.response.body.requestId ?? '');
      expect(runs.map((r) => r.requestId)).to.deep.equal([accepted.response.body.requestId]);
    });
  });

  describe('x-request-id on 404', () => {
    it('echoes x-request-id for an unknown connection id and for a path that is no id', async () => {
      for (const id of [newId(), 'not-an-id']) {
        const requestId = `req-${newId()}`;
        const response = await postWebhook(harness, id, '{}', { 'x-request-id': requestId });
        expect([response.status, response.body.outcome], id).to.deep.equal([404, 'TRIGGER_NOT_FOUND']);
        expect(response.headers.get('x-request-id'), id).to.equal(requestId);
      }
    });
  });

  describe('identifier types end to end', () => {
    /**
     * Posts `missing` payloads (each must be 422 IDENTIFIER_NOT_FOUND with its history row) and then `found` (202
     * ACCEPTED); once the accepted request has run, the flow has exactly that one run, for the contact's chat.
     */
    async function expectResolution(
      setup: Awaited<ReturnType<typeof boundConnection>>,
      owner: { contactId: string; chatId: string },
      missing: unknown[],
      found: unknown,
    ) {
      const { connection, flowId, secret } = setup;
      for (const payload of missing) {
        const { response, requestId } = await post(connection, payload, secret);
        const what = JSON.stringify(payload);
        expect([response.status, response.body.outcome], what).to.deep.equal([422, 'IDENTIFIER_NOT_FOUND']);
        expect(await historyRow(connection._id, requestId), what).to.deep.include({
          outcome: 'IDENTIFIER_NOT_FOUND',
          httpStatus: 422,
          contactId: null,
          flowIds: [],
        });
      }
      const { response, requestId } = await post(connection, found, secret);
      expect([response.status, response.body.outcome], JSON.stringify(response.body)).to.deep.equal([202, 'ACCEPTED']);
      expect(response.body.flows?.map((f) => f.id)).to.deep.equal([flowId]);
      expect(await historyRow(connection._id, requestId)).to.deep.include({
        outcome: 'ACCEPTED',
        httpStatus: 202,
        contactId: owner.contactId,
        flowIds: [flowId],
      });
      const runs = await settledFlowRuns(harness, org.sessionToken, flowId, response.body.requestId ?? '');
      expect(runs.map((r) => ({ requestId: r.requestId, contactId: r.contactId, chatId: r.chatId }))).to.deep.equal([
        { requestId: response.body.requestId, ...owner },
      ]);
    }

    const randomPhone = () => `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;

    it('Phone number (E.164): resolves any spelling of the number, not another number or a national one', async () => {
      const phone = randomPhone();
      const spelled = `${phone.slice(0, 2)} (${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`;
      const owner = await contactWithChatFrom(fixtures, { phone: spelled });
      const setup = await boundConnection({ identifierType: 'PHONE_NUMBER', identifierPath: '$.customer.phone' });
      let unknown = randomPhone();
      while (unknown === phone) unknown = randomPhone();
      await expectResolution(
        setup,
        owner,
        [{ customer: { phone: unknown } }, { customer: { phone: phone.slice(2) } }, { customer: {} }],
        { customer: { phone: `00${phone.slice(1)}` } },
      );
    });

    it('Channel user ID: resolves within the connection’s channel integration only', async () => {
      const [channel, other] = [await channelOfOrg(), await channelOfOrg()];
      const userId = `U-${newId().slice(-8)}`;
      const owner = await contactWithChatFrom(fixtures, {
        identities: [{ type: 'CHANNEL_USER_ID', value: userId, channelIntegrationId: channel }],
      });
      const input = { identifierType: 'CHANNEL_USER_ID', identifierPath: '$.user.id' };
      const elsewhere = await boundConnection({ ...input, channelIntegrationId: other });
      const { response, requestId } = await post(elsewhere.connection, { user: { id: userId } }, elsewhere.secret);
      expect([response.status, response.body.outcome]).to.deep.equal([422, 'IDENTIFIER_NOT_FOUND']);
      expect((await historyRow(elsewhere.connection._id, requestId)).outcome).to.equal('IDENTIFIER_NOT_FOUND');

      const setup = await boundConnection({ ...input, channelIntegrationId: channel });
      await expectResolution(setup, owner, [{ user: { id: `${userId}-other` } }], { user: { id: userId } });
    });

    it('Channel user ID: a connection without channelIntegrationId is BAD_USER_INPUT, on create and on update', async () => {
      const before = await listedIds(org);
      const created = await gql(
        'mutation($input: CreateInboundConnectionInput!) { createInboundConnection(input: $input) { _id } }',
        { input: { name: 'No channel', identifierType: 'CHANNEL_USER_ID', identifierPath: '$.user.id' } },
      );
      expect(codeOf(created), JSON.stringify(created.body)).to.equal('BAD_USER_INPUT');
      expect(created.body.errors?.[0]?.extensions?.field).to.equal('channelIntegrationId');
      expect(await listedIds(org)).to.deep.equal(before);

      const email = await fixtures.connection({});
      const updated = await gql(
        'mutation($id: String!) { updateInboundConnection(id: $id, input: { identifierType: CHANNEL_USER_ID }) { _id } }',
        { id: email._id },
      );
      expect(codeOf(updated), JSON.stringify(updated.body)).to.equal('BAD_USER_INPUT');
    });

    it('Chat ID: resolves a chat of the org to its contact, not an unknown chat or a chat of another org', async () => {
      const owner = await fixtures.contactWithChat(`chat-${newId()}@example.com`);
      const theirChat = await other.openChat();
      const setup = await boundConnection({ identifierType: 'CHAT_ID', identifierPath: '$.conversation.chat' });
      await expectResolution(
        setup,
        owner,
        [
          { conversation: { chat: newId() } },
          { conversation: { chat: theirChat } },
          { conversation: { chat: 'not-a-chat-id' } },
        ],
        { conversation: { chat: owner.chatId } },
      );
    });
  });
});
