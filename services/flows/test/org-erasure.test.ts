import { checkServiceOrgPart } from '@svc/kit';
import { flowsData } from '../src/data';
import { FLOWS_ORG_ROWS, flowsOrgPart } from '../src/domain/org-erasure';

describe('flows: erasing a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221)', () => {
  it('deletes every row of the org in every table, nothing of another org, and confirms zeros again', async () => {
    await checkServiceOrgPart(flowsData, FLOWS_ORG_ROWS, () => flowsOrgPart());
  });
});
