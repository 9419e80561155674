import { checkServiceOrgPart } from '@svc/kit';
import { contactsData } from '../src/data';
import { CONTACTS_ORG_ROWS, contactsOrgPart } from '../src/domain/erasure/org-part';

describe('contacts: erasing a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221)', () => {
  it('deletes every row of the org in every table, nothing of another org, and confirms zeros again', async () => {
    await checkServiceOrgPart(contactsData, CONTACTS_ORG_ROWS, () => contactsOrgPart());
  });
});
