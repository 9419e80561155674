import { OutboxEvent } from '@svc/kit';
import { LeaseRow } from './lease';
import { PartnerDeliveryAttemptRow, PartnerDeliveryRow } from './partner-delivery';
import { PartnerWebhookRow } from './partner-webhook';
import { UsageContactRow, UsageCounterRow, UsageEventRow } from './usage';

export {
  LeaseRow,
  PartnerDeliveryAttemptRow,
  PartnerDeliveryRow,
  PartnerWebhookRow,
  UsageContactRow,
  UsageCounterRow,
  UsageEventRow,
};
export const entities = [
  PartnerWebhookRow,
  PartnerDeliveryRow,
  PartnerDeliveryAttemptRow,
  LeaseRow,
  OutboxEvent,
  UsageCounterRow,
  UsageContactRow,
  UsageEventRow,
];
