import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { checkServiceOrgPart, fillOrgRows, newId, runOrgErasure, testOrgErasure } from '@svc/kit';
import { partnerData } from '../src/data';
import { closePartnerDb, openPartnerDb } from './partner-db';
import { PARTNER_ORG_ROWS, partnerOrgPart } from '../src/domain/org-erasure';
import { PartnerDeliveryAttemptRow, PartnerDeliveryRow, PartnerWebhookRow, UsageCounterRow } from '../src/entities';

describe('partner: erasing a deprovisioned client org (docs/erasure.md "Erasing an org", decision 0221)', () => {
  let dataSource: DataSource;

  before(async () => {
    dataSource = await openPartnerDb('partner_org_erasure');
  });
  after(async () => {
    await closePartnerDb(dataSource);
  });

  it('deletes every row of the org in every table, nothing of another org, and confirms zeros again', async () => {
    await checkServiceOrgPart(partnerData, PARTNER_ORG_ROWS, partnerOrgPart);
  });

  it("deletes the client org's deliveries to its provider's webhooks with their attempts; its usage and the provider's rows stay", async () => {
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
    // The client org's usage history (decision 0221: it survives).
    const usage = { clientOrgId: client, period: '2026-11', metric: 'messages_in', channelKind: 'WEB', count: 3 };
    await dataSource.manager.insert(UsageCounterRow, { ...usage, providerOrgId: provider });
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
    expect(await dataSource.manager.findOneBy(UsageCounterRow, { clientOrgId: client })).to.include({ count: 3 });
  });
});
