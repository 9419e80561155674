import { OutboxEvent } from '@svc/kit';
import { LeaseRow } from './lease';
import { PartnerDeliveryAttemptRow, PartnerDeliveryRow } from './partner-delivery';
import { PartnerWebhookRow } from './partner-webhook';

export { LeaseRow, PartnerDeliveryAttemptRow, PartnerDeliveryRow, PartnerWebhookRow };
// The usage tables are added by the usage rollup (services/partner/src/entities/usage.ts).
export const entities = [PartnerWebhookRow, PartnerDeliveryRow, PartnerDeliveryAttemptRow, LeaseRow, OutboxEvent];
