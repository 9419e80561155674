import { checkServiceOrgPart } from '@svc/kit';
import { channelsData } from '../src/data';
import { CHANNELS_ORG_ROWS, channelsOrgPart } from '../src/domain/org-erasure';

describe('channels: erasing a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221)', () => {
  it('deletes every row of the org in every table, nothing of another org, and confirms zeros again', async () => {
    await checkServiceOrgPart(channelsData, CHANNELS_ORG_ROWS, () => channelsOrgPart());
  });
});
