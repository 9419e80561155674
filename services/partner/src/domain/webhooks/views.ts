import { toIso, toIsoOrUndefined } from '@svc/kit';
import type {
  PartnerWebhook,
  PartnerWebhookAttempt,
  PartnerWebhookDelivery,
} from '@svc/proto/partner/v1/partner_webhooks';
import type { PartnerDeliveryAttemptRow, PartnerDeliveryRow, PartnerWebhookRow } from '../../entities';

/** A webhook as every answer shows it: never a secret, sealed or not. */
export function webhookView(row: PartnerWebhookRow): PartnerWebhook {
  return {
    id: row.id,
    url: row.url,
    events: [...row.events],
    status: row.status,
    disabledReason: row.disabledReason ?? undefined,
    disabledAt: toIsoOrUndefined(row.disabledAt),
    description: row.description ?? undefined,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    previousSecretExpiresAt: row.previousSecretSealed ? toIsoOrUndefined(row.previousSecretExpiresAt) : undefined,
  };
}

export function attemptView(row: PartnerDeliveryAttemptRow): PartnerWebhookAttempt {
  return {
    attempt: row.attempt,
    attemptedAt: toIso(row.attemptedAt),
    statusCode: row.statusCode,
    latencyMs: row.latencyMs,
    responseExcerpt: row.responseExcerpt,
    error: row.error ?? undefined,
  };
}

/** A delivery of the log with its attempts (in attempt order). */
export function deliveryView(row: PartnerDeliveryRow, attempts: PartnerDeliveryAttemptRow[]): PartnerWebhookDelivery {
  return {
    id: row.id,
    webhookId: row.webhookId,
    eventType: row.eventType,
    clientOrgId: row.clientOrgId,
    status: row.status,
    attemptCount: row.attemptCount,
    nextAttemptAt: toIsoOrUndefined(row.nextAttemptAt),
    createdAt: toIso(row.createdAt),
    deliveredAt: toIsoOrUndefined(row.deliveredAt),
    attempts: attempts.map(attemptView),
  };
}
