import { OrgRowsErasure, orgRowsPart } from '@svc/kit';
import { ErasureConfirmationRow, ErasureRequestRow } from '../../entities';

/**
 * What contacts deletes of a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221): its contacts with
 * their identities, its people field definitions and values. The receipts of its contacts' erasures survive: ids,
 * times and counts, no personal data, the proof that those erasures were done (docs/erasure.md "Reading the
 * receipt").
 */
export const CONTACTS_ORG_ROWS = new OrgRowsErasure({ keep: [ErasureRequestRow, ErasureConfirmationRow] });

export const contactsOrgPart = () => orgRowsPart('contacts', CONTACTS_ORG_ROWS);
