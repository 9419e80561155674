import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import bcrypt from 'bcrypt';
import { dropTestDatabase, newId, testEnv } from '@svc/kit';
import { InboundOutcome } from '@svc/proto/webhooks/v1';
import { verifyPaymentsProvider } from '../src/auth/provider-modes';
import { SharedSecretVerifier } from '../src/auth/shared-secret';
import { IdempotencyKeyRow, RequestLogRow } from '../src/entities';
import { scrubHeaders } from '../src/domain/scrub';
import { WebhookIngressApp, enforceRetention, ingressConfig } from '../src';

describe('WebhookIngress', () => {
  describe('SharedSecretVerifier', () => {
    it('returns true for the stored secret and pays bcrypt once per secret version', async () => {
      const hash = await bcrypt.hash('s3cret', 4);
      const verifier = new SharedSecretVerifier(2);
      const compare = bcrypt.compare;
      let comparisons = 0;
      (bcrypt as { compare: typeof compare }).compare = ((a: string, b: string) => {
        comparisons += 1;
        return compare(a, b);
      }) as typeof compare;
      try {
        const id = newId();
        const results = await Promise.all(Array.from({ length: 10 }, () => verifier.verify(id, 1, hash, 's3cret')));
        expect(results.every(Boolean)).to.equal(true);
        expect(await verifier.verify(id, 1, hash, 'wrong')).to.equal(false);
        expect(await verifier.verify(id, 1, hash, 'wrong')).to.equal(false);
        expect(comparisons).to.equal(2);
        // A rotation bumps the version: the cached verification of the old secret no longer applies.
        const rotated = await bcrypt.hash('new', 4);
        expect(await verifier.verify(id, 2, rotated, 's3cret')).to.equal(false);
      } finally {
        (bcrypt as { compare: typeof compare }).compare = compare;
      }
    });
  });

  describe('verifyPaymentsProvider', () => {
    it('keys the HMAC with the whole secret, whsec_ prefix included', () => {
      const secret = 'whsec_abc123';
      const body = Buffer.from('{"a":1}');
      const t = Math.floor(Date.now() / 1000);
      const good = createHmac('sha256', secret).update(`${t}.${body.toString()}`).digest('hex');
      const stripped = createHmac('sha256', 'abc123').update(`${t}.${body.toString()}`).digest('hex');
      const check = (sig: string) =>
        verifyPaymentsProvider({
          headers: (n) => (n === 'stripe-signature' ? `t=${t},v1=${sig}` : undefined),
          body,
          secret,
          nowSeconds: t,
        });
      expect(check(good)).to.equal(true);
      expect(check(stripped)).to.equal(false);
    });
  });

  describe('scrubHeaders', () => {
    it('replaces listed credentials and every header whose name looks like one, in any case, keeping the rest', () => {
      const credentials = [
        'proxy-authorization',
        'cookie',
        'set-cookie',
        'x-shopify-hmac-sha256',
        'x-api-key',
        'X-ApiKey',
        'x-client-SECRET',
        'x-signature',
        'x-access-token',
        'x-auth-user',
      ];
      const scrubbed = scrubHeaders(
        { ...Object.fromEntries(credentials.map((name) => [name, 'the-secret'])), 'x-order': 'o', accept: '*/*' },
        null,
      );
      expect(scrubbed).to.deep.equal({
        ...Object.fromEntries(credentials.map((name) => [name.toLowerCase(), '[scrubbed]'])),
        'x-order': 'o',
        accept: '*/*',
      });
    });

    it('replaces credential, provider signature and the generic header', () => {
      const scrubbed = scrubHeaders(
        {
          'x-webhook-secret': 's',
          authorization: 'a',
          'stripe-signature': 'x',
          'x-custom-sig': 'y',
          'x-request-id': 'r',
        },
        'X-Custom-Sig',
      );
      expect(scrubbed).to.deep.equal({
        'x-webhook-secret': '[scrubbed]',
        authorization: '[scrubbed]',
        'stripe-signature': '[scrubbed]',
        'x-custom-sig': '[scrubbed]',
        'x-request-id': 'r',
      });
    });
  });

  describe('retention job', () => {
    let app: WebhookIngressApp;
    before(async () => {
      app = new WebhookIngressApp(ingressConfig(testEnv('webhook_ingress')));
      await app.start();
    });
    after(async () => {
      await app.stop();
      await dropTestDatabase(app.config.DB_URL);
    });

    it('deletes history older than 30 days and idempotency keys older than 24 hours', async () => {
      const day = 24 * 3600 * 1000;
      const row = (ageMs: number) => ({
        id: newId(),
        orgId: newId(),
        connectionId: newId(),
        requestId: null,
        idempotencyKey: null,
        outcome: InboundOutcome.UNAUTHORIZED,
        httpStatus: 401,
        headers: '{}',
        contactId: null,
        flowIds: '[]',
        replay: false,
        detail: null,
        createdAt: new Date(Date.now() - ageMs),
      });
      const old = row(31 * day);
      const recent = row(29 * day);
      await app.dataSource.manager.insert(RequestLogRow, [old, recent]);
      const key = (id: string, ageMs: number) => ({
        id,
        connectionId: newId(),
        outcome: InboundOutcome.ACCEPTED,
        httpStatus: 202,
        responseBody: '{}',
        createdAt: new Date(Date.now() - ageMs),
      });
      await app.dataSource.manager.insert(IdempotencyKeyRow, [
        key('a'.repeat(64), 25 * 3600 * 1000),
        key('b'.repeat(64), 1000),
      ]);
      await enforceRetention(app.dataSource);
      expect(await app.dataSource.manager.existsBy(RequestLogRow, { id: old.id })).to.equal(false);
      expect(await app.dataSource.manager.existsBy(RequestLogRow, { id: recent.id })).to.equal(true);
      expect(await app.dataSource.manager.existsBy(IdempotencyKeyRow, { id: 'a'.repeat(64) })).to.equal(false);
      expect(await app.dataSource.manager.existsBy(IdempotencyKeyRow, { id: 'b'.repeat(64) })).to.equal(true);
    });

    it('deletes in batches until nothing expired is left, and counts what it deleted', async () => {
      const day = 24 * 3600 * 1000;
      const connectionId = newId();
      const rows = Array.from({ length: 23 }, (_, i) => ({
        id: newId(),
        orgId: newId(),
        connectionId,
        requestId: null,
        idempotencyKey: null,
        outcome: InboundOutcome.UNAUTHORIZED,
        httpStatus: 401,
        headers: '{}',
        contactId: null,
        flowIds: '[]',
        replay: false,
        detail: null,
        // 20 expired (31 to 50 days old), 3 kept.
        createdAt: new Date(Date.now() - (i < 20 ? (31 + i) * day : day)),
      }));
      await app.dataSource.manager.insert(RequestLogRow, rows);
      expect(await enforceRetention(app.dataSource, new Date(), 7)).to.equal(20);
      expect(await app.dataSource.manager.countBy(RequestLogRow, { connectionId })).to.equal(3);
      expect(await enforceRetention(app.dataSource, new Date(), 7)).to.equal(0);
    });
  });
});
