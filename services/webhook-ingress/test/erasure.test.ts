import { expect } from 'chai';
import {
  EmbeddedBus,
  documentedErasureKinds,
  dropTestDatabase,
  eventually,
  newId,
  participantRoundTrip,
  publishEraseConfirmation,
  publishEraseRequest,
  testEnv,
  testErasure,
  publishOrgEraseConfirmation,
  publishOrgEraseRequest,
  testOrgErasure,
} from '@svc/kit';
import { InboundOutcome } from '@svc/proto/webhooks/v1';
import { WebhookIngressApp, ingressConfig } from '../src';
import { subscribeCacheInvalidation } from '../src/domain/cache-invalidation';
import { INGRESS_CONTACT_ROWS } from '../src/domain/erasure';
import { RequestLogRow } from '../src/entities';

function historyRow(orgId: string, contactId: string | null): RequestLogRow {
  return {
    id: newId(),
    orgId,
    connectionId: newId(),
    requestId: 'req-from-sender',
    idempotencyKey: 'order-ann@example.com',
    outcome: InboundOutcome.ACCEPTED,
    httpStatus: 202,
    headers: JSON.stringify({ 'x-customer-email': 'ann@example.com' }),
    contactId,
    flowIds: JSON.stringify([newId()]),
    replay: false,
    detail: null,
    createdAt: new Date(),
  };
}

describe('webhook-ingress: erasing a contact (decision 0172)', () => {
  let app: WebhookIngressApp;
  const manager = () => app.dataSource.manager;

  before(async () => {
    app = new WebhookIngressApp(ingressConfig(testEnv('webhook_ingress_erasure')), { serveHttp: false });
    await app.start();
  });
  after(async () => {
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  const erase = (orgId: string, contactId: string) =>
    app.dataSource.transaction((tx) => INGRESS_CONTACT_ROWS.erase(tx, orgId, contactId));

  it('counts the kinds docs/erasure.md lists for it, in that order', () => {
    expect(INGRESS_CONTACT_ROWS.kinds).to.deep.equal(documentedErasureKinds('webhook-ingress'));
  });

  it("anonymises the history rows that resolved to the contact: headers, contact, sender's ids cleared", async () => {
    const orgId = newId();
    const contactId = newId();
    const otherOrgId = newId();
    const mine = [historyRow(orgId, contactId), historyRow(orgId, contactId)];
    const others = [historyRow(orgId, newId()), historyRow(orgId, null), historyRow(otherOrgId, contactId)];
    await manager().insert(RequestLogRow, [...mine, ...others]);

    expect(await INGRESS_CONTACT_ROWS.count(manager(), orgId, contactId)).to.deep.equal([
      { kind: 'history_rows', count: 2 },
    ]);
    expect(await erase(orgId, contactId)).to.deep.equal([{ kind: 'history_rows', count: 2 }]);

    for (const row of mine) {
      const stored = await manager().findOneByOrFail(RequestLogRow, { id: row.id });
      expect(stored).to.deep.include({ headers: '{}', contactId: null, requestId: null, idempotencyKey: null });
      // What the connection's history still shows: that a request came and what became of it.
      expect(stored).to.deep.include({ outcome: row.outcome, httpStatus: 202, flowIds: row.flowIds });
    }
    for (const row of others) {
      const stored = await manager().findOneByOrFail(RequestLogRow, { id: row.id });
      expect(stored.headers).to.equal(row.headers);
      expect(stored.contactId).to.equal(row.contactId);
    }
    expect(await erase(orgId, contactId), 'erasing again').to.deep.equal([{ kind: 'history_rows', count: 0 }]);
  });

  it('answers PreviewErasure, anonymises on contact.erase_requested and confirms what it anonymised', async () => {
    const orgId = newId();
    const contactId = newId();
    const row = historyRow(orgId, contactId);
    await manager().insert(RequestLogRow, [row, historyRow(newId(), contactId)]);
    const { preview, confirmed } = await participantRoundTrip(app, testErasure(orgId, contactId));
    expect(preview).to.deep.equal([{ kind: 'history_rows', count: 1 }]);
    expect(confirmed).to.deep.equal(preview);
    expect(await manager().findOneByOrFail(RequestLogRow, { id: row.id })).to.include({ contactId: null });
  });

  it("drops the cached lookups of a contact when its erasure is requested, not on another service's confirmation", async () => {
    const bus = new EmbeddedBus();
    await bus.start();
    const evicted: { orgId: string; contactId: string }[] = [];
    const subscription = await subscribeCacheInvalidation(bus, '', {
      flowsChanged: () => undefined,
      contactChanged: (orgId, contactId) => evicted.push({ orgId, contactId }),
      orgErased: () => undefined,
    });
    try {
      // One contact, so one key and one partition: the confirmation is handled before the request; the orgs differ.
      const contactId = newId();
      const confirmed = testErasure(newId(), contactId);
      const requested = testErasure(newId(), contactId);
      await publishEraseConfirmation(bus, '', confirmed, 'inbox', []);
      await publishEraseRequest(bus, '', requested);
      await eventually(() => Promise.resolve(evicted.length > 0));
      expect(evicted).to.deep.equal([{ orgId: requested.orgId, contactId }]);
    } finally {
      await subscription.stop();
      await bus.stop();
    }
  });

  it('drops the cached lookups of an org when its deprovisioning is requested (decision 0221)', async () => {
    const bus = new EmbeddedBus();
    await bus.start();
    const erased: string[] = [];
    const subscription = await subscribeCacheInvalidation(bus, '', {
      flowsChanged: () => undefined,
      contactChanged: () => undefined,
      orgErased: (orgId) => erased.push(orgId),
    });
    try {
      const orgId = newId();
      await publishOrgEraseConfirmation(bus, '', testOrgErasure(newId()), 'inbox', []);
      await publishOrgEraseRequest(bus, '', testOrgErasure(orgId));
      await eventually(() => Promise.resolve(erased.length > 0));
      expect(erased).to.deep.equal([orgId]);
    } finally {
      await subscription.stop();
      await bus.stop();
    }
  });
});
