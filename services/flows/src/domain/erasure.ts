import { ContactRowsErasure } from '@svc/kit';
import { RunRow } from '../entities';

/**
 * What flows keeps about a contact (docs/erasure.md, decision 0171): `flow_runs` of the contact, deleted with what
 * each holds (the webhook payload its `{{webhook.…}}` variables render from, its request context, its error). A run
 * in progress stops at its next step: the runner records progress only on a row that is still there.
 */
export const FLOWS_CONTACT_ROWS = new ContactRowsErasure([
  { kind: 'flow_runs', target: RunRow, where: 'org_id = :orgId AND contact_id = :contactId' },
]);
