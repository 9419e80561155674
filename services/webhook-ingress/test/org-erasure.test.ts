import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { checkOrgRowsPart, documentedOrgErasureKinds, dropTestDatabase, openDataSource, testDbUrl } from '@svc/kit';
import { ingressData } from '../src/data';
import { INGRESS_ORG_ROWS, ingressOrgPart } from '../src/domain/org-erasure';

describe('webhook-ingress: erasing a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221)', () => {
  const url = testDbUrl('webhook_ingress_org_erasure');
  let dataSource: DataSource;

  before(async () => {
    dataSource = await openDataSource({ ...ingressData, url }, { migrate: true });
  });
  after(async () => {
    await dataSource.destroy();
    await dropTestDatabase(url);
  });

  it('deletes every row of the org in every table, nothing of another org, and confirms zeros again', async () => {
    const counts = await checkOrgRowsPart(dataSource, INGRESS_ORG_ROWS, ingressOrgPart({}));
    expect(counts.map(({ kind }) => kind)).to.deep.equal(documentedOrgErasureKinds('webhook-ingress'));
    expect(
      counts.filter(({ count }) => count === 0),
      'kinds the test filled nothing in',
    ).to.deep.equal([]);
  });
});
