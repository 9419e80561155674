import { OrgRowsErasure, orgRowsPart } from '@svc/kit';
import { ProcessedEventRow } from '../entities';

/**
 * What flows deletes of a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221): its flows and every
 * run with what it holds. A run in progress stops at its next step: the runner records progress only on a row that
 * is still there (as for a contact's runs, decision 0171). The processed-event marks name events, not orgs.
 */
export const FLOWS_ORG_ROWS = new OrgRowsErasure({ noOrgData: [ProcessedEventRow] });

export const flowsOrgPart = () => orgRowsPart('flows', FLOWS_ORG_ROWS);
