import { ContactRowsErasure } from '@svc/kit';
import { VisitorSessionRow } from '../entities';

/**
 * What widget-api keeps about a contact (docs/erasure.md, decision 0173): `widget_sessions`, the contact's visitor
 * sessions, deleted: their refresh tokens stop working and their session tokens are refused from then on (a session
 * token is honoured only while its session row exists), and the contact's open SSE streams end on every replica
 * (realtime/feed.ts).
 */
export const WIDGET_CONTACT_ROWS = new ContactRowsErasure([
  { kind: 'widget_sessions', target: VisitorSessionRow, where: 'org_id = :orgId AND contact_id = :contactId' },
]);
