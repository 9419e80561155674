import { checkServiceOrgPart } from '@svc/kit';
import { ingressData } from '../src/data';
import { INGRESS_ORG_ROWS, ingressOrgPart } from '../src/domain/org-erasure';

describe('webhook-ingress: erasing a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221)', () => {
  it('deletes every row of the org in every table, nothing of another org, and confirms zeros again', async () => {
    await checkServiceOrgPart(ingressData, INGRESS_ORG_ROWS, () => ingressOrgPart({}));
  });
});
