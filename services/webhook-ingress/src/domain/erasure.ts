import { ContactRowsErasure } from '@svc/kit';
import { RequestLogRow } from '../entities';

/**
 * What webhook-ingress keeps about a contact (docs/erasure.md, decision 0172): `history_rows`, the history rows of
 * requests that resolved to the contact, anonymised: the headers (the payload is never stored), the contact id, the
 * sender's request id and idempotency key are cleared; the outcome, status, connection, flows and time stay, so the
 * connection's history still counts the request. Cached lookups of the contact are dropped by every replica when the
 * erasure is requested (cache-invalidation.ts).
 */
export const INGRESS_CONTACT_ROWS = new ContactRowsErasure<RequestLogRow>([
  {
    kind: 'history_rows',
    target: RequestLogRow,
    where: 'org_id = :orgId AND contact_id = :contactId',
    anonymise: { headers: '{}', contactId: null, requestId: null, idempotencyKey: null },
  },
]);
