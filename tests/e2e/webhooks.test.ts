import { expect } from 'chai';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiScope, eventually, newId } from '@svc/kit';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import {
  SIGNERS,
  TIMESTAMPED,
  WRONG_VALUE,
  connectionInputFor,
  signingSecretFor,
  unknownTagOnly,
} from '../support/webhook-signers';
import { WebhookFixtures, postWebhook, settledFlowRuns } from '../support/webhooks';

const MESSAGES = 'query($chatId: String!) { getMessages(chatId: $chatId, input: { limit: 100 }) { data { text } } }';

describe('Inbound webhooks (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let fixtures: WebhookFixtures;
  let readerKey: string;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('Webhooks');
    fixtures = new WebhookFixtures(harness, org);
    readerKey = (await org.mintKey([ApiScope.MESSAGES_READ, ApiScope.CONVERSATIONS_MANAGE])).key;
  });

  after(async () => harness.stop());

  async function messagesOf(chatId: string): Promise<string[]> {
    const response = await harness.graphql<{ getMessages: { data: { text: string }[] } }>(
      MESSAGES,
      { chatId },
      readerKey,
    );
    return response.body.data?.getMessages.data.map((m) => m.text) ?? [];
  }

  /** A connection of the mode with a contact and a published flow, so a valid request is ACCEPTED. */
  async function ready(input: Record<string, unknown>) {
    const email = `c-${newId()}@example.com`;
    const connection = await fixtures.connection(input);
    const { chatId } = await fixtures.contactWithChat(email);
    const flowId = await fixtures.publishedFlow(connection._id);
    const body = JSON.stringify({ customer: { email }, order: { id: `o-${newId().slice(-6)}` } });
    return { connection, chatId, flowId, email, body };
  }

  describe('Shared Secret', () => {
    it('returns the secret only at creation and accepts it, answering 202 with the request id and flows', async () => {
      const { connection, body, flowId } = await ready({});
      expect(connection.secret).to.be.a('string');
      expect(connection.hasSigningSecret).to.equal(true);
      const again = await fixtures.connectionAction('pauseInboundConnection', connection._id);
      expect(again.secret).to.equal(null);
      await fixtures.connectionAction('resumeInboundConnection', connection._id);
      const accepted = await postWebhook(harness, connection._id, body, {
        'x-webhook-secret': connection.secret ?? '',
      });
      expect(accepted.status, JSON.stringify(accepted.body)).to.equal(202);
      expect(accepted.body.requestId).to.match(/^[0-9a-f]{24}$/);
      expect(accepted.body.flows?.map((f) => f.id)).to.deep.equal([flowId]);
    });

    it('answers 401 for a wrong or missing secret', async () => {
      const { connection, body } = await ready({});
      expect((await postWebhook(harness, connection._id, body, { 'x-webhook-secret': 'whs_wrong' })).status).to.equal(
        401,
      );
      expect((await postWebhook(harness, connection._id, body)).status).to.equal(401);
    });

    it('refuses the old secret at once after rotation and accepts the new one', async () => {
      const { connection, body } = await ready({});
      const old = connection.secret ?? '';
      expect((await postWebhook(harness, connection._id, body, { 'x-webhook-secret': old })).status).to.equal(202);
      const rotated = await fixtures.connectionAction('rotateInboundConnectionSecret', connection._id);
      expect(rotated.secret).to.be.a('string').and.not.equal(old);
      expect((await postWebhook(harness, connection._id, body, { 'x-webhook-secret': old })).status).to.equal(401);
      const fresh = await postWebhook(harness, connection._id, body, { 'x-webhook-secret': rotated.secret ?? '' });
      expect(fresh.status).to.equal(202);
    });
  });

  for (const mode of Object.keys(SIGNERS)) {
    describe(`signature mode ${mode}`, () => {
      const sign = SIGNERS[mode]!;
      let setup: Awaited<ReturnType<typeof ready>>;
      let secret: string;

      before(async () => {
        secret = signingSecretFor(mode);
        setup = await ready(connectionInputFor(mode, secret));
        expect(setup.connection.secret).to.equal(null);
        expect(setup.connection.hasSigningSecret).to.equal(true);
      });

      const post = (body: string, headers: Record<string, string>) =>
        postWebhook(harness, setup.connection._id, body, headers);

      it('returns 202 for a valid signature', async () => {
        expect((await post(setup.body, sign(setup.body, secret))).status).to.equal(202);
      });

      it('returns 401 for a signature made with another secret', async () => {
        expect((await post(setup.body, sign(setup.body, signingSecretFor(mode)))).status).to.equal(401);
      });

      it('returns 401 when the body changed by one byte', async () => {
        const changed = setup.body.replace('"order"', '"ordeR"');
        expect((await post(changed, sign(setup.body, secret))).status).to.equal(401);
      });

      it('returns 401 when whitespace was added to the JSON', async () => {
        const spaced = JSON.stringify(JSON.parse(setup.body), null, 2);
        expect((await post(spaced, sign(setup.body, secret))).status).to.equal(401);
      });

      if (TIMESTAMPED.includes(mode)) {
        it('returns 401 for a timestamp 301 s in the past or the future', async () => {
          // The service compares whole seconds on its own clock, which may tick over between signing and checking:
          // counted from the next whole second, the future stamp is still 301 s ahead when it is checked (counted
          // from this one, a tick made it 300 s and the request passed, rarely).
          const now = Math.floor(Date.now() / 1000);
          expect((await post(setup.body, sign(setup.body, secret, { at: now - 301 }))).status).to.equal(401);
          expect((await post(setup.body, sign(setup.body, secret, { at: now + 1 + 301 }))).status).to.equal(401);
        });
      }

      it('returns 202 when several signatures are sent and only one is valid', async () => {
        const headers = sign(setup.body, secret, { extra: [WRONG_VALUE[mode]!, WRONG_VALUE[mode]!] });
        expect((await post(setup.body, headers)).status).to.equal(202);
      });

      if (unknownTagOnly(mode, '{}', 'x')) {
        it('returns 401 when the only signature carries an unknown version tag', async () => {
          const only = unknownTagOnly(mode, setup.body, secret) ?? [];
          expect((await post(setup.body, sign(setup.body, secret, { only }))).status).to.equal(401);
        });
      }

      it('returns 401 when the signature header is missing', async () => {
        expect((await post(setup.body, {})).status).to.equal(401);
      });
    });
  }

  describe('provider signing secrets at rest', () => {
    const rowOf = async (id: string) =>
      (
        (await harness.stack.ingress.dataSource.query('SELECT * FROM inbound_connections WHERE id = ?', [id])) as {
          signing_secret: string | null;
          signing_secret_sealed: string | null;
        }[]
      )[0];

    it('stores the secret sealed, never in plain text, and verifies with it; an update replaces it at once', async () => {
      const mode = 'PAYMENTS_PROVIDER';
      const secret = signingSecretFor(mode);
      const { connection, body } = await ready(connectionInputFor(mode, secret));
      const row = await rowOf(connection._id);
      expect(row?.signing_secret).to.equal(null);
      expect(row?.signing_secret_sealed).to.match(/^v1:[\w-]+:[\w-]+:[\w-]+$/);
      expect(JSON.stringify(row)).not.to.include(secret);
      expect(JSON.stringify(row)).not.to.include(secret.replace(/^whsec_/, ''));
      const post = (headers: Record<string, string>) => postWebhook(harness, connection._id, body, headers);
      expect((await post(SIGNERS[mode]!(body, secret))).status).to.equal(202);

      const replaced = signingSecretFor(mode);
      const updated = await harness.graphql<{ updateInboundConnection: { hasSigningSecret: boolean } }>(
        'mutation($id: String!, $s: String!) { updateInboundConnection(id: $id, input: { signingSecret: $s }) { hasSigningSecret } }',
        { id: connection._id, s: replaced },
        org.sessionToken,
      );
      expect(updated.body.data?.updateInboundConnection.hasSigningSecret, JSON.stringify(updated.body)).to.equal(true);
      expect(JSON.stringify(await rowOf(connection._id))).not.to.include(replaced);
      expect((await post(SIGNERS[mode]!(body, secret))).status).to.equal(401);
      expect((await post(SIGNERS[mode]!(body, replaced))).status).to.equal(202);

      // On the embedded default, not even the database files (WAL included) hold either secret in plain text.
      const file = harness.stack.ingress.config.DB_URL.replace(/^sqlite:/, '');
      if (file !== harness.stack.ingress.config.DB_URL) {
        const bytes = Buffer.concat(
          [file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)),
        );
        for (const plain of [secret, replaced]) expect(bytes.includes(Buffer.from(plain)), plain).to.equal(false);
        expect(fs.existsSync(path.join(path.dirname(file), 'webhook-secrets.key'))).to.equal(true);
      }
    });
  });

  describe('outcomes of spec 7.2, each with its history row', () => {
    it('writes one row per request with outcome, status, echoed x-request-id and scrubbed secrets', async () => {
      const { connection, body, email } = await ready({});
      const secret = { 'x-webhook-secret': connection.secret ?? '' };
      const cases: [number, string, string, Record<string, string>][] = [
        [202, 'ACCEPTED', body, secret],
        [401, 'UNAUTHORIZED', body, { 'x-webhook-secret': 'nope' }],
        [400, 'INVALID_JSON', '{"customer":', secret],
        [400, 'INVALID_JSON', body, { ...secret, 'content-type': 'text/plain' }],
        [413, 'PAYLOAD_TOO_LARGE', JSON.stringify({ pad: 'x'.repeat(100 * 1024) }), secret],
        [422, 'IDENTIFIER_NOT_FOUND', JSON.stringify({ customer: { email: `nobody-${email}` } }), secret],
        [422, 'IDENTIFIER_NOT_FOUND', JSON.stringify({ other: 1 }), secret],
      ];
      for (const [status, outcome, payload, headers] of cases) {
        const requestId = `req-${newId()}`;
        const response = await postWebhook(harness, connection._id, payload, {
          ...headers,
          'x-request-id': requestId,
          authorization: 'Bearer should-be-scrubbed',
        });
        expect(response.status, `${outcome}: ${JSON.stringify(response.body)}`).to.equal(status);
        expect(response.body.outcome).to.equal(outcome);
        expect(response.headers.get('x-request-id')).to.equal(requestId);
        const row = (await fixtures.history(connection._id)).find((r) => r.requestId === requestId);
        expect(row, outcome).to.include({ outcome, httpStatus: status });
        expect(row?.headers['x-webhook-secret'] ?? '[scrubbed]').to.equal('[scrubbed]');
        expect(row?.headers.authorization).to.equal('[scrubbed]');
      }
      const unauthorized = await fixtures.history(connection._id, 'UNAUTHORIZED');
      expect(unauthorized.map((r) => r.outcome)).to.deep.equal(['UNAUTHORIZED']);
    });

    it('answers 404 TRIGGER_NOT_FOUND for a missing connection, a paused one and one without a published flow', async () => {
      expect((await postWebhook(harness, newId(), '{}')).body.outcome).to.equal('TRIGGER_NOT_FOUND');
      const { connection, body } = await ready({});
      const secret = { 'x-webhook-secret': connection.secret ?? '' };
      const paused = await fixtures.connectionAction('pauseInboundConnection', connection._id);
      expect(paused.status).to.equal('PAUSED');
      const whilePaused = await postWebhook(harness, connection._id, body, secret);
      expect([whilePaused.status, whilePaused.body.outcome]).to.deep.equal([404, 'TRIGGER_NOT_FOUND']);
      await fixtures.connectionAction('resumeInboundConnection', connection._id);
      expect((await postWebhook(harness, connection._id, body, secret)).status).to.equal(202);

      const unbound = await fixtures.connection({});
      const email = JSON.parse(body).customer.email as string;
      const noFlow = await postWebhook(harness, unbound._id, JSON.stringify({ customer: { email } }), {
        'x-webhook-secret': unbound.secret ?? '',
      });
      expect([noFlow.status, noFlow.body.outcome]).to.deep.equal([404, 'TRIGGER_NOT_FOUND']);
      const rows = await fixtures.history(connection._id, 'TRIGGER_NOT_FOUND');
      expect(rows.map((r) => r.httpStatus)).to.deep.equal([404]);
    });
  });

  describe('capture and inject', () => {
    it('absorbs the first payload in the tunnel as the schema without running flows, then accepts again', async () => {
      const { connection, body, chatId } = await ready({});
      const secret = { 'x-webhook-secret': connection.secret ?? '' };
      const open = await fixtures.connectionAction('captureInboundConnectionSchema', connection._id);
      expect(open.captureOpenUntil).to.be.a('string');
      const captured = await postWebhook(harness, connection._id, body, secret);
      expect([captured.status, captured.body.outcome]).to.deep.equal([202, 'SAMPLE_CAPTURED']);
      const after = await fixtures.connectionAction('pauseInboundConnection', connection._id);
      expect(after.captureOpenUntil).to.equal(null);
      expect(after.payloadSchema.version).to.equal(1);
      expect(after.payloadSchema.fields).to.deep.include({ path: 'customer.email', type: 'string', required: true });
      await fixtures.connectionAction('resumeInboundConnection', connection._id);
      expect((await postWebhook(harness, connection._id, body, secret)).body.outcome).to.equal('ACCEPTED');
      const texts = await eventually(async () => {
        const list = await messagesOf(chatId);
        return list.length ? list : undefined;
      });
      expect(texts).to.have.length(1);
    });

    it('treats an injected payload exactly like a live capture', async () => {
      const connection = await fixtures.connection({});
      const injected = await fixtures.inject(connection._id, { a: { b: 1 }, list: [{ c: 'x' }, { c: null }] });
      expect(injected.payloadSchema.version).to.equal(1);
      expect(injected.payloadSchema.fields).to.deep.include({ path: 'a.b', type: 'number', required: true });
      expect(injected.payloadSchema.fields).to.deep.include({ path: 'list[].c', type: 'string', required: false });
      const replaced = await fixtures.inject(connection._id, { only: true });
      expect(replaced.payloadSchema.version).to.equal(2);
      expect(replaced.payloadSchema.fields).to.deep.equal([{ path: 'only', type: 'boolean', required: true }]);
      expect((await fixtures.history(connection._id, 'SAMPLE_CAPTURED')).length).to.equal(2);
    });
  });

  describe('idempotency', () => {
    /**
     * Waits until everything the connection dispatched so far has been consumed and run, and returns the flow's runs
     * apart from the sentinel's: a later request (no idempotency key, another contact with its own chat) is
     * dispatched after them on the same connection, whose events are consumed in order, so once its run exists and
     * every run has finished, a duplicate run (and its message) would exist too.
     */
    async function settledRunsBefore(connection: { _id: string; secret: string | null }, flowId: string) {
      const email = `sentinel-${newId()}@example.com`;
      await fixtures.contactWithChat(email);
      const sentinel = await postWebhook(harness, connection._id, JSON.stringify({ customer: { email } }), {
        'x-webhook-secret': connection.secret ?? '',
      });
      expect(sentinel.body.outcome, JSON.stringify(sentinel.body)).to.equal('ACCEPTED');
      const runs = await settledFlowRuns(harness, org.sessionToken, flowId, sentinel.body.requestId ?? '', {
        finished: true,
      });
      return runs.filter((run) => run.requestId !== sentinel.body.requestId);
    }

    it('replays the cached response for a repeated X-Idempotency-Key and starts nothing', async () => {
      const { connection, body, chatId, flowId } = await ready({});
      const headers = { 'x-webhook-secret': connection.secret ?? '', 'x-idempotency-key': `k-${newId()}` };
      const first = await postWebhook(harness, connection._id, body, headers);
      const second = await postWebhook(harness, connection._id, body, headers);
      expect(first.body.outcome).to.equal('ACCEPTED');
      expect(second.status).to.equal(202);
      expect(second.body).to.deep.equal(first.body);
      const rows = await fixtures.history(connection._id);
      expect(rows.map((r) => r.replay)).to.deep.equal([true, false]);
      const runs = await settledRunsBefore(connection, flowId);
      expect(runs.map((r) => [r.requestId, r.status])).to.deep.equal([[first.body.requestId, 'COMPLETED']]);
      expect(await messagesOf(chatId)).to.have.length(1);
    });

    it('starts flows once for concurrent duplicates', async () => {
      const { connection, body, chatId, flowId } = await ready({});
      const headers = { 'x-webhook-secret': connection.secret ?? '', 'x-idempotency-key': `k-${newId()}` };
      const responses = await Promise.all(
        Array.from({ length: 6 }, () => postWebhook(harness, connection._id, body, headers)),
      );
      expect(responses.map((r) => r.status)).to.deep.equal(Array(6).fill(202));
      expect(new Set(responses.map((r) => r.body.requestId)).size).to.equal(1);
      const accepted = (await fixtures.history(connection._id)).filter((r) => !r.replay);
      expect(accepted).to.have.length(1);
      const runs = await settledRunsBefore(connection, flowId);
      expect(runs.map((r) => [r.requestId, r.status])).to.deep.equal([[responses[0]?.body.requestId, 'COMPLETED']]);
      expect(await messagesOf(chatId)).to.have.length(1);
    });
  });

  describe('flows', () => {
    it('runs the bound flow: the message appears in the chat with the payload value, a missing field as null', async () => {
      const email = `flow-${newId()}@example.com`;
      const connection = await fixtures.connection({});
      const { chatId } = await fixtures.contactWithChat(email);
      await fixtures.publishedFlow(connection._id, 'Order {{webhook.order.id}} ({{webhook.order.missing}})');
      const response = await postWebhook(
        harness,
        connection._id,
        JSON.stringify({ customer: { email }, order: { id: 'A-42' } }),
        { 'x-webhook-secret': connection.secret ?? '' },
      );
      expect(response.status).to.equal(202);
      const texts = await eventually(async () => {
        const list = await messagesOf(chatId);
        return list.length ? list : undefined;
      });
      expect(texts).to.deep.equal(['Order A-42 (null)']);
    });

    it('refuses flow authoring and connection management to API keys', async () => {
      const key = (await org.mintKey([ApiScope.CONVERSATIONS_MANAGE, ApiScope.CONTACTS_MANAGE])).key;
      for (const query of ['{ flows { _id } }', '{ inboundConnections { _id } }']) {
        const response = await harness.graphql(query, {}, key);
        expect(response.status).to.equal(403);
      }
    });

    it('starts and stops a published flow in a chat with CONVERSATIONS_MANAGE', async () => {
      const { chatId } = await fixtures.contactWithChat(`chat-${newId()}@example.com`);
      const created = await harness.graphql<{ createFlow: { _id: string } }>(
        'mutation($i: CreateFlowInput!) { createFlow(input: $i) { _id } }',
        {
          i: {
            name: 'Nudge',
            trigger: { type: 'STARTED_FOR_CHAT' },
            steps: [
              { type: 'SEND_MESSAGE', text: 'first' },
              { type: 'WAIT', waitSeconds: 3600 },
              { type: 'CLOSE_CHAT' },
            ],
          },
        },
        org.sessionToken,
      );
      const flowId = created.body.data?.createFlow._id ?? '';
      await harness.graphql(
        'mutation($f: String!) { publishFlow(flowId: $f) { _id } }',
        { f: flowId },
        org.sessionToken,
      );
      const started = await harness.graphql<{ apiStartFlowForChat: { _id: string; status: string } }>(
        'mutation($c: String!, $f: String!) { apiStartFlowForChat(chatId: $c, flowId: $f) { _id status } }',
        { c: chatId, f: flowId },
        readerKey,
      );
      expect(started.body.data?.apiStartFlowForChat.status, JSON.stringify(started.body)).to.equal('QUEUED');
      await eventually(async () => (await messagesOf(chatId)).includes('first'));
      const stopped = await harness.graphql<{ apiStopFlowForChat: boolean }>(
        'mutation($c: String!, $f: String!) { apiStopFlowForChat(chatId: $c, flowId: $f) }',
        { c: chatId, f: flowId },
        readerKey,
      );
      expect(stopped.body.data?.apiStopFlowForChat).to.equal(true);
    });
  });

  describe('delivery through the bus', () => {
    it('runs exactly one flow per accepted request after the flows consumer was stopped for 500 of them', async function () {
      this.timeout(180_000);
      const connection = await fixtures.connection({});
      const email = `bulk-${newId()}@example.com`;
      await fixtures.contactWithChat(email);
      const flowId = await fixtures.publishedFlow(connection._id, 'bulk {{webhook.n}}');
      const runs = async () => {
        const rows = (await harness.stack.flows.dataSource.query(
          'SELECT COUNT(*) AS n FROM flow_runs WHERE flow_id = ?',
          [flowId],
        )) as { n: number | string }[];
        return Number(rows[0]?.n ?? 0);
      };
      await harness.stack.flows.stopConsumer();
      const headers = { 'x-webhook-secret': connection.secret ?? '' };
      let next = 0;
      const statuses: number[] = [];
      const requestIds: string[] = [];
      const client = async () => {
        for (let n = next++; n < 500; n = next++) {
          const body = JSON.stringify({ customer: { email }, n });
          const response = await postWebhook(harness, connection._id, body, headers);
          statuses.push(response.status);
          if (response.body.requestId) requestIds.push(response.body.requestId);
        }
      };
      await Promise.all(Array.from({ length: 10 }, client));
      expect(statuses.filter((s) => s === 202)).to.have.length(500);
      expect(new Set(requestIds).size).to.equal(500);
      // Every accepted request's event has left the ingress outbox (relayed to the bus) while nobody consumed it.
      await eventually(
        async () => {
          const rows = (await harness.stack.ingress.dataSource.query('SELECT COUNT(*) AS n FROM outbox_events')) as {
            n: number | string;
          }[];
          return Number(rows[0]?.n) === 0;
        },
        60_000,
        'the ingress outbox to drain',
      );
      expect(await runs()).to.equal(0);
      await harness.stack.flows.startConsumer();
      // A sentinel dispatched after the backlog on the same connection (consumed in order): once it has run, the
      // whole backlog has been consumed, redeliveries after the restart included, and nothing is left in flight.
      const sentinel = await postWebhook(
        harness,
        connection._id,
        JSON.stringify({ customer: { email }, n: -1 }),
        headers,
      );
      expect(sentinel.body.outcome).to.equal('ACCEPTED');
      const all = await settledFlowRuns(harness, org.sessionToken, flowId, sentinel.body.requestId ?? '', {
        deadlineMs: 120_000,
      });
      const backlog = all.filter((run) => run.requestId !== sentinel.body.requestId).map((run) => run.requestId);
      expect(backlog).to.have.length(500);
      expect(new Set(backlog).size).to.equal(500);
      expect([...backlog].sort()).to.deep.equal([...requestIds].sort());
      expect(await runs()).to.equal(501);
    });
  });
});
