import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { checkOrgRowsPart, documentedOrgErasureKinds, dropTestDatabase, openDataSource, testDbUrl } from '@svc/kit';
import { contactsData } from '../src/data';
import { CONTACTS_ORG_ROWS, contactsOrgPart } from '../src/domain/erasure/org-part';

describe('contacts: erasing a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221)', () => {
  const url = testDbUrl('contacts_org_erasure');
  let dataSource: DataSource;

  before(async () => {
    dataSource = await openDataSource({ ...contactsData, url }, { migrate: true });
  });
  after(async () => {
    await dataSource.destroy();
    await dropTestDatabase(url);
  });

  it('deletes every row of the org in every table, nothing of another org, and confirms zeros again', async () => {
    const counts = await checkOrgRowsPart(dataSource, CONTACTS_ORG_ROWS, contactsOrgPart());
    expect(counts.map(({ kind }) => kind)).to.deep.equal(documentedOrgErasureKinds('contacts'));
    expect(
      counts.filter(({ count }) => count === 0),
      'kinds the test filled nothing in',
    ).to.deep.equal([]);
  });
});
