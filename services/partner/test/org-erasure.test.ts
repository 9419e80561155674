import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
  checkServiceOrgPart,
  dropTestDatabase,
  fillOrgRows,
  newId,
  openDataSource,
  runOrgErasure,
  testDbUrl,
  testOrgErasure,
} from '@svc/kit';
import { partnerData } from '../src/data';
import { PARTNER_ORG_ROWS, partnerOrgPart } from '../src/domain/org-erasure';
import { PartnerDeliveryAttemptRow, PartnerDeliveryRow, PartnerWebhookRow } from '../src/entities';

describe('partner: erasing a deprovisioned client org (docs/erasure.md "Erasing an org", decision 0221)', () => {
  const url = testDbUrl('partner_org_erasure');
  let dataSource: DataSource;

  before(async () => {
    dataSource = await openDataSource({ ...partnerData, url }, { migrate: true });
  });
  after(async () => {
    await dataSource.destroy();
    await dropTestDatabase(url);
  });

  it('deletes every row of the org in every table, nothing of another org, and confirms zeros again', async () => {
    await checkServiceOrgPart(partnerData, PARTNER_ORG_ROWS, partnerOrgPart);
  });

  it("deletes the client org's deliveries to its provider's webhooks with their attempts; the provider keeps the rest", async () => {
    const provider = newId();
    const client = newId();
    const sibling = newId();
    await fillOrgRows(dataSource, provider, PARTNER_ORG_ROWS, 1);
    const [webhook] = await dataSource.manager.findBy(PartnerWebhookRow, { orgId: provider });
    const [template] = await dataSource.manager.findBy(PartnerDeliveryRow, { orgId: provider });
    const [attempt] = await dataSource.manager.findBy(PartnerDeliveryAttemptRow, { orgId: provider });
    if (!webhook || !template || !attempt) throw new Error('provider rows not filled');
    // The provider's deliveries of two client orgs' events, two attempts each.
    for (const clientOrgId of [client, client, sibling]) {
      const delivery = { ...template, id: newId(), clientOrgId, eventId: newId(), webhookId: webhook.id };
      await dataSource.manager.insert(PartnerDeliveryRow, delivery);
      for (const n of [2, 3]) {
        await dataSource.manager.insert(PartnerDeliveryAttemptRow, {
          ...attempt,
          id: newId(),
          deliveryId: delivery.id,
          attempt: n,
        });
      }
    }
    const erased = await runOrgErasure(dataSource, partnerOrgPart(), testOrgErasure(client));
    expect(erased.counts).to.deep.equal([
      { kind: 'partner_deliveries', count: 2 },
      { kind: 'partner_delivery_attempts', count: 4 },
      { kind: 'partner_webhooks', count: 0 },
    ]);
    expect(await dataSource.manager.countBy(PartnerDeliveryRow, { clientOrgId: client })).to.equal(0);
    expect(await dataSource.manager.countBy(PartnerDeliveryRow, { clientOrgId: sibling })).to.equal(1);
    expect(await dataSource.manager.countBy(PartnerDeliveryAttemptRow, { orgId: provider })).to.equal(1 + 2);
    expect(await dataSource.manager.countBy(PartnerWebhookRow, { orgId: provider })).to.equal(1);
  });
});
