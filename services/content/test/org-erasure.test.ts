import { checkServiceOrgPart } from '@svc/kit';
import { contentData } from '../src/data';
import { CONTENT_ORG_ROWS, contentOrgPart } from '../src/domain/org-erasure';

describe('content: erasing a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221)', () => {
  it('deletes every row of the org in every table, nothing of another org, and confirms zeros again', async () => {
    await checkServiceOrgPart(contentData, CONTENT_ORG_ROWS, () => contentOrgPart());
  });
});
