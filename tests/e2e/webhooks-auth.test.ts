import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { eventually, newId } from '@svc/kit';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { SIGNERS, asSvixHeaders, connectionInputFor, signingSecretFor } from '../support/webhook-signers';
import { WebhookFixtures, allFlowRuns, postWebhook, type WebhookResponse } from '../support/webhooks';

const DELIVERY = 'WEBHOOK_DELIVERY_PLATFORM';
const MAX_BODY_BYTES = 100 * 1024;
/** How much of a body is read so its signature can be checked before the size rule (decision 0044). */
const READ_CAP_BYTES = 1024 * 1024;
const HOUR_MS = 3600 * 1000;

/**
 * Gaps left by the matrix of webhooks.test.ts: the Svix header names, the delivery platform's message id as the
 * idempotency key, the key's 24-hour window, the 100 KB boundary (chunked bodies included), signature headers
 * scrubbed for every mode, and the Shared Secret stored only as a bcrypt hash.
 */
describe('Inbound webhooks: authentication, idempotency and limits (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let fixtures: WebhookFixtures;
  /** One contact (with a chat) that every connection's payload names: a valid request is ACCEPTED. */
  let email: string;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('Webhook auth');
    fixtures = new WebhookFixtures(harness, org);
    email = `auth-${newId()}@example.com`;
    await fixtures.contactWithChat(email);
  });

  after(async () => harness.stop());

  const payload = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ customer: { email }, order: { id: `o-${newId().slice(-6)}` }, ...extra });

  /** A connection of the mode (signing secret generated here) with a published flow bound to it. */
  async function acceptingConnection(mode?: string) {
    const secret = mode ? signingSecretFor(mode) : '';
    const connection = await fixtures.connection(mode ? connectionInputFor(mode, secret) : {});
    const flowId = await fixtures.publishedFlow(connection._id);
    return { connection, flowId, secret: mode ? secret : (connection.secret ?? '') };
  }

  async function flowRuns(flowId: string, requestId?: string): Promise<number> {
    const rows = (await harness.stack.flows.dataSource.query(
      `SELECT COUNT(*) AS n FROM flow_runs WHERE flow_id = ?${requestId ? ' AND request_id = ?' : ''}`,
      requestId ? [flowId, requestId] : [flowId],
    )) as { n: number | string }[];
    return Number(rows[0]?.n ?? 0);
  }

  async function ingressOutboxSize(): Promise<number> {
    const rows = (await harness.stack.ingress.dataSource.query('SELECT COUNT(*) AS n FROM outbox_events')) as {
      n: number | string;
    }[];
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * How many times the flow ran once everything dispatched up to the accepted request `lastRequestId` has run: the
   * events of one connection are relayed and consumed in order, so once that request's run exists (and the ingress
   * outbox is empty) every earlier dispatch has run too.
   */
  async function settledRuns(flowId: string, lastRequestId: string | undefined): Promise<number> {
    await eventually(async () => (await flowRuns(flowId, lastRequestId)) >= 1, 30_000, `the run of ${lastRequestId}`);
    await eventually(async () => (await ingressOutboxSize()) === 0, 30_000, 'the ingress outbox to drain');
    return flowRuns(flowId);
  }

  const status = (response: WebhookResponse) => [response.status, response.body.outcome];

  describe('Standard Webhooks / Svix header names', () => {
    it('accepts svix-id, svix-timestamp and svix-signature in place of the webhook-* names', async () => {
      const { connection, secret } = await acceptingConnection(DELIVERY);
      const body = payload();
      const headers = asSvixHeaders(SIGNERS[DELIVERY]!(body, secret));
      expect(Object.keys(headers).sort()).to.deep.equal(['svix-id', 'svix-signature', 'svix-timestamp']);
      expect(status(await postWebhook(harness, connection._id, body, headers))).to.deep.equal([202, 'ACCEPTED']);
    });

    it('scrubs svix-signature in the history row', async () => {
      const { connection, secret } = await acceptingConnection(DELIVERY);
      const body = payload();
      const headers = asSvixHeaders(SIGNERS[DELIVERY]!(body, secret));
      const { response, row } = await fixtures.postLogged(connection._id, body, headers);
      expect(response.status).to.equal(202);
      expect(row.headers['svix-signature']).to.equal('[scrubbed]');
      expect(JSON.stringify(row.headers)).not.to.include(headers['svix-signature']!.slice(3));
    });
  });

  describe('the delivery platform message id as the idempotency key', () => {
    for (const names of ['webhook', 'svix'] as const) {
      it(`replays the first response for a re-signed request with the same ${names}-id and runs the flow once`, async () => {
        const { connection, flowId, secret } = await acceptingConnection(DELIVERY);
        const body = payload();
        const id = `msg_${newId()}`;
        const sign = (content: string, options: { id?: string; at?: number } = {}) => {
          const headers = SIGNERS[DELIVERY]!(content, secret, options);
          return names === 'svix' ? asSvixHeaders(headers) : headers;
        };
        const at = Math.floor(Date.now() / 1000);
        const first = await fixtures.postLogged(connection._id, body, sign(body, { id, at }));
        const resent = sign(body, { id, at: at - 1 });
        expect(resent).not.to.deep.equal(sign(body, { id, at })); // a new signature, as a sender's retry carries
        const second = await fixtures.postLogged(connection._id, body, resent);
        expect(status(first.response)).to.deep.equal([202, 'ACCEPTED']);
        expect(second.response.status).to.equal(first.response.status);
        expect(second.response.body).to.deep.equal(first.response.body);
        expect([first.row.replay, second.row.replay]).to.deep.equal([false, true]);
        // A later message (a new id) is dispatched after both: by the time it has run, a dispatched replay would
        // have run too. So two runs in all (the first and the later one), not three.
        const later = payload();
        const accepted = await postWebhook(harness, connection._id, later, sign(later));
        expect(accepted.status).to.equal(202);
        expect(await settledRuns(flowId, accepted.body.requestId)).to.equal(2);
      });
    }
  });

  describe('idempotency window (24 hours, decision 0012)', () => {
    const ageKeys = (connectionId: string, ageMs: number) =>
      harness.stack.ingress.dataSource
        .getRepository('idempotency_keys')
        .update({ connectionId }, { createdAt: new Date(Date.now() - ageMs) });

    async function sentTwiceWithKey(keyAgeMs: number) {
      const { connection, flowId, secret } = await acceptingConnection();
      const headers = { 'x-webhook-secret': secret, 'x-idempotency-key': `k-${newId()}` };
      const body = payload();
      const first = await fixtures.postLogged(connection._id, body, headers);
      expect(first.response.status).to.equal(202);
      await ageKeys(connection._id, keyAgeMs);
      const second = await fixtures.postLogged(connection._id, body, headers);
      return { connection, flowId, headers, body, first, second };
    }

    it('treats a key stored more than 24 hours ago as a new request', async () => {
      const { connection, flowId, headers, body, first, second } = await sentTwiceWithKey(24 * HOUR_MS + 60_000);
      expect(status(second.response)).to.deep.equal([202, 'ACCEPTED']);
      expect(second.response.body.requestId).not.to.equal(first.response.body.requestId);
      expect(second.row.replay).to.equal(false);
      expect(await settledRuns(flowId, second.response.body.requestId)).to.equal(2);
      // The new request holds the key now: a third one replays it.
      const third = await postWebhook(harness, connection._id, body, headers);
      expect(third.body.requestId).to.equal(second.response.body.requestId);
    });

    it('still replays a key stored 23 hours ago', async () => {
      const { first, second } = await sentTwiceWithKey(23 * HOUR_MS);
      expect(second.response.body).to.deep.equal(first.response.body);
      expect(second.row.replay).to.equal(true);
    });
  });

  describe('100 KB body limit', () => {
    const MODE = 'PAYMENTS_PROVIDER';

    /** Valid JSON naming the contact, padded to exactly `bytes` bytes. */
    function bodyOf(bytes: number): string {
      const bare = payload({ pad: '' });
      const body = payload({ pad: 'x'.repeat(bytes - Buffer.byteLength(bare)) });
      expect(Buffer.byteLength(body)).to.equal(bytes);
      return body;
    }

    /** POSTs the chunks with `Transfer-Encoding: chunked` and no Content-Length, as a streaming sender does. */
    function postChunked(connectionId: string, chunks: string[], headers: Record<string, string>) {
      return new Promise<{ status: number; outcome: string }>((resolve, reject) => {
        const request = http.request(
          `${harness.url}/webhooks/in/${connectionId}`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers },
          },
          (response) => {
            const parts: Buffer[] = [];
            response.on('data', (part: Buffer) => parts.push(part));
            response.on('error', reject);
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                outcome: (JSON.parse(Buffer.concat(parts).toString()) as { outcome: string }).outcome,
              }),
            );
          },
        );
        request.on('error', reject);
        for (const chunk of chunks) request.write(chunk);
        request.end();
      });
    }

    it('accepts a signed JSON body of exactly 102 400 bytes, and its flow runs with that payload', async () => {
      const { connection, flowId, secret } = await acceptingConnection(MODE);
      const body = bodyOf(MAX_BODY_BYTES);
      const response = await postWebhook(harness, connection._id, body, SIGNERS[MODE]!(body, secret));
      expect(status(response)).to.deep.equal([202, 'ACCEPTED']);
      // The payload travels in the outbox event and is stored with the run: both must hold 100 KB on every database.
      const run = await eventually(async () =>
        (await allFlowRuns(harness, org.sessionToken, flowId)).find(
          (r) => r.requestId === response.body.requestId && r.status !== 'QUEUED' && r.status !== 'RUNNING',
        ),
      );
      expect(run?.status).to.equal('COMPLETED');
    });

    it('answers 413 PAYLOAD_TOO_LARGE with its history row for 102 401 bytes', async () => {
      const { connection, secret } = await acceptingConnection(MODE);
      const body = bodyOf(MAX_BODY_BYTES + 1);
      const { response, row } = await fixtures.postLogged(connection._id, body, SIGNERS[MODE]!(body, secret));
      expect(status(response)).to.deep.equal([413, 'PAYLOAD_TOO_LARGE']);
      expect(row).to.include({ outcome: 'PAYLOAD_TOO_LARGE', httpStatus: 413 });
    });

    it('answers 401 UNAUTHORIZED with its history row for 102 401 bytes signed with another secret (auth first)', async () => {
      const { connection } = await acceptingConnection(MODE);
      const body = bodyOf(MAX_BODY_BYTES + 1);
      const { response, row } = await fixtures.postLogged(
        connection._id,
        body,
        SIGNERS[MODE]!(body, signingSecretFor(MODE)),
      );
      expect(status(response)).to.deep.equal([401, 'UNAUTHORIZED']);
      expect(row).to.include({ outcome: 'UNAUTHORIZED', httpStatus: 401 });
    });

    it('answers 401 to a chunked body over 100 KB signed with another secret, 413 to the same body signed right', async () => {
      const { connection, secret } = await acceptingConnection(MODE);
      const body = bodyOf(MAX_BODY_BYTES + 8 * 1024);
      const chunks = body.match(/[^]{1,16384}/g) ?? [];
      const wrong = await postChunked(connection._id, chunks, SIGNERS[MODE]!(body, signingSecretFor(MODE)));
      const right = await postChunked(connection._id, chunks, SIGNERS[MODE]!(body, secret));
      expect([wrong, right]).to.deep.equal([
        { status: 401, outcome: 'UNAUTHORIZED' },
        { status: 413, outcome: 'PAYLOAD_TOO_LARGE' },
      ]);
    });

    describe(`beyond the read cap (${READ_CAP_BYTES} bytes, decision 0044)`, () => {
      it('answers 413 when the signature header is well formed and fresh, right or wrong: the HMAC cannot be computed', async () => {
        const { connection, secret } = await acceptingConnection(MODE);
        const body = bodyOf(READ_CAP_BYTES + 1);
        const right = await fixtures.postLogged(connection._id, body, SIGNERS[MODE]!(body, secret));
        const wrong = await fixtures.postLogged(connection._id, body, SIGNERS[MODE]!(body, signingSecretFor(MODE)));
        expect([status(right.response), status(wrong.response)]).to.deep.equal([
          [413, 'PAYLOAD_TOO_LARGE'],
          [413, 'PAYLOAD_TOO_LARGE'],
        ]);
        expect([right.row.outcome, wrong.row.outcome]).to.deep.equal(['PAYLOAD_TOO_LARGE', 'PAYLOAD_TOO_LARGE']);
      });

      it('answers 401 when the headers alone disprove it: no signature, a stale timestamp, a wrong Shared Secret', async () => {
        const { connection } = await acceptingConnection(MODE);
        const shared = await acceptingConnection();
        const body = bodyOf(READ_CAP_BYTES + 1);
        const stale = SIGNERS[MODE]!(body, signingSecretFor(MODE), { at: Math.floor(Date.now() / 1000) - 400 });
        const answers = [
          await fixtures.postLogged(connection._id, body, {}),
          await fixtures.postLogged(connection._id, body, stale),
          await fixtures.postLogged(shared.connection._id, body, { 'x-webhook-secret': 'wrong' }),
        ];
        for (const { response, row } of answers) {
          expect(status(response)).to.deep.equal([401, 'UNAUTHORIZED']);
          expect(row).to.include({ outcome: 'UNAUTHORIZED', httpStatus: 401 });
        }
      });

      it('answers a Content-Length above the cap at once, without waiting for the body', async () => {
        const { connection, secret } = await acceptingConnection(MODE);
        const body = bodyOf(READ_CAP_BYTES + 1);
        const requestId = `req-${newId()}`;
        // Only the first 16 KB are ever sent: an answer proves the service did not wait for the rest.
        const answer = await new Promise<{ status: number; outcome: string }>((resolve, reject) => {
          const request = http.request(`${harness.url}/webhooks/in/${connection._id}`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(body)),
              'x-request-id': requestId,
              ...SIGNERS[MODE]!(body, secret),
            },
          });
          request.on('response', (response) => {
            const parts: Buffer[] = [];
            response.on('data', (part: Buffer) => parts.push(part));
            response.on('end', () => {
              request.destroy();
              resolve({
                status: response.statusCode ?? 0,
                outcome: (JSON.parse(Buffer.concat(parts).toString()) as { outcome: string }).outcome,
              });
            });
          });
          request.on('error', reject);
          request.write(body.slice(0, 16 * 1024));
        });
        expect(answer).to.deep.equal({ status: 413, outcome: 'PAYLOAD_TOO_LARGE' });
        const row = (await fixtures.history(connection._id)).find((r) => r.requestId === requestId);
        expect(row).to.include({ outcome: 'PAYLOAD_TOO_LARGE', httpStatus: 413 });
      });
    });

    it('answers 413 to a chunked body without Content-Length once it passes the cap', async () => {
      const { connection, secret } = await acceptingConnection(MODE);
      const body = bodyOf(MAX_BODY_BYTES + 8 * 1024);
      const chunks = body.match(/[^]{1,16384}/g) ?? [];
      const requestId = `req-${newId()}`;
      const response = await postChunked(connection._id, chunks, {
        ...SIGNERS[MODE]!(body, secret),
        'x-request-id': requestId,
      });
      expect(response).to.deep.equal({ status: 413, outcome: 'PAYLOAD_TOO_LARGE' });
      const row = (await fixtures.history(connection._id)).find((r) => r.requestId === requestId);
      expect(row).to.include({ outcome: 'PAYLOAD_TOO_LARGE', httpStatus: 413 });
      expect(row?.headers).to.include({ 'transfer-encoding': 'chunked' });
      expect(row?.headers).not.to.have.property('content-length');
    });
  });

  describe('signature headers in the history row', () => {
    for (const mode of Object.keys(SIGNERS)) {
      it(`${mode}: shows every signature header the sender sent as [scrubbed]`, async () => {
        const { connection, secret } = await acceptingConnection(mode);
        const body = payload();
        const sent = SIGNERS[mode]!(body, secret);
        const { response, row } = await fixtures.postLogged(connection._id, body, sent);
        expect(response.status).to.equal(202);
        // Timestamps and message ids prove nothing alone and may stay readable; everything else carries a MAC.
        const signatureHeaders = Object.keys(sent).filter((name) => !/-(timestamp|id)$/.test(name));
        expect(signatureHeaders).to.have.length.greaterThan(0);
        for (const name of signatureHeaders) {
          expect(row.headers[name], name).to.equal('[scrubbed]');
          expect(JSON.stringify(row.headers)).not.to.include(sent[name]!);
        }
      });
    }
  });

  describe('credential headers in the history row', () => {
    /** Each named by the rules of decision 0010: listed, a provider signature header, or a credential-ish name. */
    const CREDENTIAL_HEADERS = [
      'authorization',
      'proxy-authorization',
      'cookie',
      'set-cookie',
      'x-webhook-secret',
      'stripe-signature',
      'x-slack-signature',
      'webhook-signature',
      'svix-signature',
      'paddle-signature',
      'mercury-signature',
      'x-hub-signature',
      'x-hub-signature-256',
      'x-shopify-hmac-sha256',
      'linear-signature',
      'x-api-key',
      'api-key',
      'x-apikey',
      'X-ApiKey-Id',
      'x-client-secret',
      'x-signature-v2',
      'x-access-token',
      'x-amz-security-token',
      'x-custom-auth',
      'x-authentication',
      'Www-Authenticate',
    ];

    it('scrubs every credential header, each carrying the secret, and the configured generic header: the secret is nowhere in the stored row', async () => {
      const secret = signingSecretFor('HUB_SIGNATURE_256');
      // A header name no rule but the connection's own configuration marks as a signature.
      const connection = await fixtures.connection({
        authMode: 'GENERIC_HMAC_SHA256',
        signingSecret: secret,
        genericHmac: { headerName: 'X-Acme-Digest', encoding: 'HEX' },
      });
      await fixtures.publishedFlow(connection._id);
      const body = payload();
      const digest = createHmac('sha256', secret).update(body).digest('hex');
      const sent = Object.fromEntries(CREDENTIAL_HEADERS.map((name, i) => [name, i % 2 ? secret : `Bearer ${secret}`]));
      const { response, row } = await fixtures.postLogged(connection._id, body, {
        ...sent,
        'x-acme-digest': digest,
        'x-order-source': 'shop',
      });
      expect(status(response)).to.deep.equal([202, 'ACCEPTED']);
      for (const name of [...CREDENTIAL_HEADERS, 'x-acme-digest'])
        expect(row.headers[name.toLowerCase()], name).to.equal('[scrubbed]');
      expect(row.headers).to.include({ 'content-type': 'application/json', 'x-order-source': 'shop' });
      const stored = (await harness.stack.ingress.dataSource.query('SELECT * FROM inbound_requests WHERE id = ?', [
        response.body.requestId,
      ])) as Record<string, unknown>[];
      expect(stored).to.have.length(1);
      expect(JSON.stringify(stored)).not.to.include(secret);
      expect(JSON.stringify(stored)).not.to.include(digest);
    });
  });

  describe('metrics', () => {
    async function counted(outcome: string, status: number): Promise<number> {
      const text = await (await fetch(`${harness.url}/metrics`)).text();
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`svc_webhook_inbound_requests_total{outcome="${outcome}",status="${status}"}`));
      return line ? Number(line.split(' ').at(-1)) : 0;
    }

    it('counts every request on /metrics by outcome and status', async () => {
      const { connection, secret } = await acceptingConnection();
      const before = [await counted('ACCEPTED', 202), await counted('UNAUTHORIZED', 401)];
      const body = payload();
      expect((await postWebhook(harness, connection._id, body, { 'x-webhook-secret': secret })).status).to.equal(202);
      expect((await postWebhook(harness, connection._id, body, { 'x-webhook-secret': 'wrong' })).status).to.equal(401);
      expect((await postWebhook(harness, connection._id, body, { 'x-webhook-secret': 'wrong' })).status).to.equal(401);
      expect([await counted('ACCEPTED', 202), await counted('UNAUTHORIZED', 401)]).to.deep.equal([
        (before[0] ?? 0) + 1,
        (before[1] ?? 0) + 2,
      ]);
    });
  });

  describe('Shared Secret at rest', () => {
    it('stores a bcrypt hash of the secret, never the secret itself, and verifies against it', async () => {
      const { connection, secret } = await acceptingConnection();
      const [row] = (await harness.stack.ingress.dataSource.query('SELECT * FROM inbound_connections WHERE id = ?', [
        connection._id,
      ])) as Record<string, unknown>[];
      expect(row?.secret_hash).to.match(/^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/);
      expect(row?.signing_secret).to.equal(null);
      expect(row?.signing_secret_sealed).to.equal(null);
      expect(JSON.stringify(row)).not.to.include(secret);
      expect((await postWebhook(harness, connection._id, payload(), { 'x-webhook-secret': secret })).status).to.equal(
        202,
      );

      // On the embedded default, not even the database files (WAL included) hold the secret in plain text.
      const url = harness.stack.ingress.config.DB_URL;
      const file = url.replace(/^sqlite:/, '');
      if (file === url) return;
      const bytes = Buffer.concat([file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)));
      expect(bytes.length).to.be.greaterThan(0);
      expect(bytes.includes(Buffer.from(secret))).to.equal(false);
    });
  });
});
