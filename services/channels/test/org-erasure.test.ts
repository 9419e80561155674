import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { checkOrgRowsPart, documentedOrgErasureKinds, dropTestDatabase, openDataSource, testDbUrl } from '@svc/kit';
import { channelsData } from '../src/data';
import { CHANNELS_ORG_ROWS, channelsOrgPart } from '../src/domain/org-erasure';

describe('channels: erasing a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221)', () => {
  const url = testDbUrl('channels_org_erasure');
  let dataSource: DataSource;

  before(async () => {
    dataSource = await openDataSource({ ...channelsData, url }, { migrate: true });
  });
  after(async () => {
    await dataSource.destroy();
    await dropTestDatabase(url);
  });

  it('deletes every row of the org in every table, nothing of another org, and confirms zeros again', async () => {
    const counts = await checkOrgRowsPart(dataSource, CHANNELS_ORG_ROWS, channelsOrgPart());
    expect(counts.map(({ kind }) => kind)).to.deep.equal(documentedOrgErasureKinds('channels'));
    expect(
      counts.filter(({ count }) => count === 0),
      'kinds the test filled nothing in',
    ).to.deep.equal([]);
  });
});
